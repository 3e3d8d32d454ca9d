"""Text from others shown as text: invisible and bidi controls made visible, terminal
control sequences removed, Markdown and HTML syntax escaped."""

from __future__ import annotations

import re

# Bidi embeddings/overrides/isolates, zero-width and other invisible format characters: they
# make text read differently from what it is (CVE-2021-42574, "Trojan Source"). A lone
# surrogate (an undecodable byte of a file name, `\ud800` in someone's JSON) is no character
# at all: shown so too, it cannot stop the text from being written as UTF-8.
_INVISIBLE = re.compile(
    "[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\ud800-\udfff]"
)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# ESC sequences (CSI ... final, OSC ... BEL/ST, two-byte ESC x), then any other C0/C1 control
# except tab and newline.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?|\x9b[0-?]*[ -/]*[@-~]"
)
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_MD_SPECIAL = re.compile(r"([\\`\[\]|])")


def visible(text: str) -> str:
    """`text` with each invisible or bidi control shown as `<U+202E>`, as code editors do."""
    return _INVISIBLE.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)


def for_terminal(text: str) -> str:
    """`text` fit for a terminal: escape sequences and control characters dropped (carriage
    returns too, so nothing overwrites a line), invisible controls made visible."""
    # Every escape sequence starts with a control character: text without one is kept as
    # it is (one scan), and only non-ASCII text can hold an invisible character.
    if _CONTROLS.search(text) is not None:
        text = _CONTROLS.sub("", _ESCAPES.sub("", text.replace("\r\n", "\n")))
    return text if text.isascii() else visible(text)


def json_escaped(json_text: str) -> str:
    """JSON text with each lone surrogate inside its strings written as a `\\uXXXX` escape:
    the same JSON value (a reader gets the string back as it was), and text that encodes as
    UTF-8 (raw, one undecodable byte in a Run folder's name stops a page or a zip)."""
    if json_text.isascii() or _LONE_SURROGATE.search(json_text) is None:
        return json_text
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text)


_LINE_BREAKS = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_LINE_BREAK = re.compile("[\n\r\t]")
# a line end that no indented detail line follows
_UNINDENTED_BREAK = re.compile("\r?\n(?![ \t])|\r(?!\n)")


def one_line(name: str) -> str:
    """A name from elsewhere (a path, a title) as one line: its line ends and tabs shown as
    `\\n`, `\\r`, `\\t`, so that a file named `x\\nwarning: ok` prints no line of its own."""
    return _LINE_BREAK.sub(lambda m: _LINE_BREAKS[m.group()], name)


def one_message(message: str) -> str:
    """An error or warning of one line and indented detail lines, as printed: a line end
    that no indented line follows (from a path or a name inside it) shown as `\\n`."""
    return _UNINDENTED_BREAK.sub(lambda m: one_line(m.group()), message)


def markdown_text(text: str) -> str:
    """`text` as literal Markdown inline text: HTML and link syntax escaped, one line."""
    text = for_terminal(str(text)).replace("\n", " ")
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text)


def markdown_code(text: str) -> str:
    """`text` as one Markdown code span (backticks inside it cannot close the span)."""
    text = for_terminal(str(text)).replace("\n", " ")
    run = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (run + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or run else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def markdown_fenced(text: str, info: str = "") -> str:
    """`text` as one fenced Markdown block whose fence no line of `text` can close."""
    body = for_terminal(str(text)).rstrip("\n")
    run = max((len(m) for m in re.findall(r"`{3,}", body)), default=2)
    fence = "`" * (run + 1)
    return f"{fence}{info}\n{body}\n{fence}"
