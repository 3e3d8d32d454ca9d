"""Hostile Run folders made for these tests: each is a real Run (bishengir-opt over a small
module, from tests/data) changed the way a stranger's or a broken Run could be.

Beside each Run lies `secret/` (a private file, a fake ~/.ssh key, a cache folder and a
verdict), which no command may read, show or zip. SECRET is the text they all hold.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import TRITON

BASE = TRITON / "runs" / "softmax_linalg.bishengir-opt"
SECRET = "SECRET-7d1f0c-must-never-leave"
LOG = "stages/1-bishengir-opt.log"


def make_secret(root: Path) -> Path:
    """The private files beside the Runs."""
    secret = root / "secret"
    (secret / "ssh").mkdir(parents=True, exist_ok=True)
    (secret / "passwd").write_text(
        f"root:x:0:0:{SECRET}\n// -----// IR Dump After X (x) //----- //\nmodule {{}}\n"
    )
    (secret / "ssh" / "id_rsa").write_text(f"-----BEGIN KEY-----\n{SECRET}\n")
    (secret / "triton-cache").mkdir(exist_ok=True)
    (secret / "triton-cache" / "k.ttir").write_text(f"module {{}} // {SECRET}\n")
    (secret / "verdict.json").write_text(json.dumps({"verdict": "sync", "text": SECRET}))
    (secret / "notes.json").write_text(json.dumps([{"dump": 0, "text": SECRET}]))
    return secret


def _manifest(run: Path) -> dict[str, Any]:
    return json.loads((run / "run.json").read_text())  # type: ignore[no-any-return]


def _edit(change: Callable[[dict[str, Any], Path, Path], None]) -> Callable[[Path, Path], None]:
    def apply(run: Path, secret: Path) -> None:
        m = _manifest(run)
        change(m, run, secret)
        (run / "run.json").write_text(json.dumps(m))

    return apply


def _raw(data: bytes) -> Callable[[Path, Path], None]:
    def apply(run: Path, secret: Path) -> None:
        (run / "run.json").write_bytes(data)

    return apply


def _link(relative: str, target: str) -> Callable[[Path, Path], None]:
    def apply(run: Path, secret: Path) -> None:
        path = run / relative
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()
        path.symlink_to(secret / target)

    return apply


def _fifo(relative: str) -> Callable[[Path, Path], None]:
    def apply(run: Path, secret: Path) -> None:
        (run / relative).unlink(missing_ok=True)
        os.mkfifo(run / relative)

    return apply


def _set(path: str, value: Any) -> Callable[[Path, Path], None]:
    """Set a field by dotted path ('stages.0.log'); `value` may name the secret as {secret}."""

    def change(m: dict[str, Any], run: Path, secret: Path) -> None:
        *parents, last = path.split(".")
        node: Any = m
        for p in parents:
            node = node[int(p)] if isinstance(node, list) else node.setdefault(p, {})
        v = value.replace("{secret}", str(secret)) if isinstance(value, str) else value
        if isinstance(node, list):
            node[int(last)] = v
        else:
            node[last] = v

    return _edit(change)


def _notes(text: str) -> Callable[[Path, Path], None]:
    def apply(run: Path, secret: Path) -> None:
        (run / "notes.json").write_text(text)

    return apply


def _deep(run: Path, secret: Path) -> None:
    text = (run / "run.json").read_text().rstrip().removesuffix("}")
    (run / "run.json").write_text(text + ', "deep": ' + "[" * 50000 + "]" * 50000 + "}")


def _hostile_text(m: dict[str, Any], run: Path, secret: Path) -> None:
    m["name"] = "\u202eevil\x1b[2J\x1b]0;pwned\x07 <img src=x onerror=alert(1)>"
    m["kernel"]["name"] = "k[click](javascript:alert(1))"
    (run / "notes.json").write_text(
        json.dumps([{"dump": 0, "text": "<script>alert(1)</script> [x](javascript:alert(1))"}])
    )


def _log_with_escapes(run: Path, secret: Path) -> None:
    log = run / LOG
    text = log.read_text()
    log.write_text(
        text.replace("IR Dump After", "IR Dump After", 1) + "\x1b[2J\x1b]0;pwned\x07\u202e\n"
    )


def _packed_artifact(kind: str) -> Callable[[Path, Path], None]:
    """The stage's artifact kept as `.zst` (as a cheap record keeps it), made hostile: a
    seek table promising a 2 GiB frame, a frame holding 10 MB where its table says 100
    bytes (a zstd bomb), or the file cut in half."""
    import struct

    import zstandard

    def apply(run: Path, secret: Path) -> None:
        from ascend_ir_lab.dumps.zstd_log import compress_log

        plain = run / "artifacts" / "output.mlir"
        packed = plain.with_name("output.mlir.zst")
        if kind == "truncated":
            compress_log(plain, packed)
            packed.write_bytes(packed.read_bytes()[: packed.stat().st_size // 2])
        else:
            text = bytes(10 << 20) if kind == "bomb" else plain.read_bytes()
            frame = zstandard.ZstdCompressor().compress(text)
            claimed = 100 if kind == "bomb" else 2 << 30
            body = struct.pack("<II", len(frame), claimed) + struct.pack("<IBI", 1, 0, 0x8F92EAB1)
            packed.write_bytes(frame + struct.pack("<II", 0x184D2A5E, len(body)) + body)
        plain.unlink()
        m = _manifest(run)
        m["stages"][0]["artifact"] = "artifacts/output.mlir.zst"
        (run / "run.json").write_text(json.dumps(m))

    return apply


def _damaged_xz_log(run: Path, secret: Path) -> None:
    (run / LOG).unlink()
    (run / "stages" / "1.log.xz").write_bytes(b"\xfd7zXZ\x00" + b"x" * 64)
    m = _manifest(run)
    m["stages"][0]["log"] = "stages/1.log.xz"
    (run / "run.json").write_text(json.dumps(m))


# name -> how to make it from a good Run
HOSTILE: dict[str, Callable[[Path, Path], None]] = {
    "log-absolute": _set("stages.0.log", "{secret}/passwd"),
    "log-dotdot": _set("stages.0.log", "../secret/passwd"),
    "artifact-dotdot": _set("stages.0.artifact", "../secret/passwd"),
    "source-outside": _set("kernel.source", "../secret/passwd"),
    "log-symlink": _link(LOG, "passwd"),
    "artifacts-symlink": _link("artifacts", "ssh"),
    "artifact-inside-symlink": lambda run, s: (run / "artifacts" / "leak.mlir").symlink_to(
        s / "passwd"
    ),
    "source-symlink": _link("source.py", "passwd"),
    "cache-dir-outside": _set("extra.cache_dir", "{secret}/ssh"),
    "cache-dir-not-a-cache": _set("extra.cache_dir", "stages"),
    "captured-from-outside": _set("extra.captured_from", "{secret}"),
    "notes-symlink": _link("notes.json", "notes.json"),
    "run-json-symlink": _link("run.json", "verdict.json"),
    "run-json-fifo": _fifo("run.json"),
    "log-fifo": _fifo(LOG),
    "not-utf8": _raw(b'{"format": "ascend-ir-lab/run@1", "name": "\xff\xfe"}'),
    "nan": _raw(
        json.dumps({**json.loads((BASE / "run.json").read_text()), "x": float("nan")}).encode()
    ),
    "infinity": _raw(
        (BASE / "run.json").read_text().replace('"seconds": 0.0322', '"seconds": 1e999').encode()
    ),
    "deep": _deep,
    "lone-surrogate": _raw(
        (BASE / "run.json")
        .read_text()
        .replace('"softmax_linalg.bishengir-opt"', '"\\ud800"', 1)
        .encode()
    ),
    "top-level-list": _raw(b"[1, 2, 3]"),
    "empty-manifest": _raw(b""),
    "other-format": _raw(b'{"format": "someone-else/run@9", "stages": []}'),
    "stages-not-list": _set("stages", "rm -rf /"),
    "stage-records-wrong": _set(
        "stages",
        [
            1,
            "x",
            {"name": 5},
            {
                "name": "s",
                "log": 7,
                "seconds": -1,
                "returncode": "0",
                "command": "rm -rf /",
                "timings": {"a": "b"},
            },
        ],
    ),
    "fields-wrong": lambda run, s: [
        _set(k, v)(run, s)
        for k, v in (
            ("name", 5),
            ("status", "ok"),
            ("kernel", []),
            ("env", [1]),
            ("versions", 3),
            ("extra", "x"),
        )
    ],
    "first-line-negative": _set(
        "kernel", {"name": "k", "first_line": -3, "signature": "x", "source": None}
    ),
    "status-code-not-text": _set("status", {"code": ["ok"], "text": "x"}),
    "extra-records-wrong": lambda run, s: [
        _set(k, v)(run, s)
        for k, v in (
            ("extra.passes_captured", False),
            ("extra.recompile", "rm -rf /"),
            ("extra.autotune", {"configs": 5}),
            ("extra.planned_stages", 7),
        )
    ],
    "extra-passes-captured-text": _set("extra.passes_captured", "no"),
    "times-past-years": _edit(
        lambda m, run, s: m["stages"][0].update(
            seconds=1.7e308, timings={"cse": 1.7e308, "canonicalize": 1.7e308}
        )
    ),
    "log-xz-damaged": _damaged_xz_log,
    "notes-broken": _notes("{broken"),
    "notes-wrong": _notes('[1, "x", {"dump": "0"}, {"dump": 0, "text": 5}]'),
    "notes-deep": _notes("[" * 100000 + "]" * 100000),
    "hostile-text": _edit(_hostile_text),
    "log-escapes": _log_with_escapes,
    "artifact-zst-bomb": _packed_artifact("bomb"),
    "artifact-zst-huge-frame": _packed_artifact("huge-frame"),
    "artifact-zst-truncated": _packed_artifact("truncated"),
}


def make_hostile(root: Path, name: str) -> tuple[Path, Path]:
    """The hostile Run `name` under `root` (and the secret folder beside it)."""
    secret = make_secret(root)
    run = root / name
    shutil.copytree(BASE, run, symlinks=True)
    m = _manifest(run)
    m["kernel"] = {"name": "softmax_linalg", "source": "source.py", "file": "k.py", "first_line": 1}
    (run / "source.py").write_text("import triton\n\ndef k():\n    pass\n")
    (run / "run.json").write_text(json.dumps(m))
    HOSTILE[name](run, secret)
    return run, secret
