"""Validate a `run.json` once, at the boundary: a field that makes the Run unusable is one
error naming it; a field that only loses a detail is a warning and a safe default."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.runs.format import FORMAT, STAGE_STATUS, STATUS_TEXT
from ascend_ir_lab.runs.paths import inside

MAX_MANIFEST_BYTES = 16 << 20
MAX_DEPTH = 32
_SECONDS_MAX = 1e9  # some 30 years: no compile or pass takes longer
_INT_BOUND = 1 << 63  # a manifest's integers (exit codes, lines, counts) fit in 64 bits
CACHE_KEYS = ("cache_dir", "triton_cache", "cache")
_CACHE_MAX_FILES = 256


class ManifestError(InputError):
    """run.json cannot be used; the message names the file and the field."""


def parse_manifest(data: bytes, where: Path) -> Any:
    """The JSON value of a manifest's bytes: strict UTF-8, finite numbers, bounded depth."""
    if len(data) > MAX_MANIFEST_BYTES:
        raise ManifestError(f"{where}: {len(data)} bytes, more than a manifest holds")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ManifestError(f"{where}: not UTF-8 (byte {exc.start})") from None
    try:
        # NaN and Infinity parse, then _first_problem names them
        value = json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise ManifestError(f"{where}:{exc.lineno}: broken manifest: {exc.msg}") from None
    except RecursionError:
        raise ManifestError(f"{where}: nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:
        raise ManifestError(f"{where}: broken manifest: {exc}") from None
    problem = _first_problem(value)
    if problem:
        raise ManifestError(f"{where}: {problem}")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object of the manifest, refused when it names a key twice: readers differ on which
    of the two counts (Python's json the last, others the first), so the Run shown would not be
    the Run another tool shows."""
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"the key {json.dumps(key)} is given twice in one object")
            seen.add(key)
    return value


def _first_problem(value: Any) -> str | None:
    """Depth, non-finite numbers and unencodable strings, found without recursion."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"{path or 'the manifest'}: nested deeper than {MAX_DEPTH} levels"
        if isinstance(item, float) and not math.isfinite(item):
            return f"{path}: {item} is not a finite number"
        if isinstance(item, int) and not -_INT_BOUND < item < _INT_BOUND:
            # 1e999 parses as inf and is refused; so is 10**400, which parses exactly and then
            # overflows every float made of it (a time, an exit code printed)
            return f"{path}: a number of {len(str(abs(item)))} digits is not a finite number"
        if isinstance(item, str) and not _encodable(item):
            return f"{path or 'a string'}: not valid Unicode (a lone surrogate)"
        if isinstance(item, dict):
            for k, v in item.items():
                if not _encodable(k):
                    return f"{path or 'a key'}: a key is not valid Unicode"
                stack.append((v, f"{path}.{k}" if path else k, depth + 1))
        elif isinstance(item, list):
            stack.extend((v, f"{path}[{i}]", depth + 1) for i, v in enumerate(item))
    return None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_manifest(value: Any, folder: Path) -> tuple[dict[str, Any], list[str]]:
    """The manifest with every field of the schema sound, and what was set aside."""
    where = folder / "run.json"
    if not isinstance(value, dict):
        raise ManifestError(f"{where}: expected a JSON object, got {type(value).__name__}")
    if value.get("format") != FORMAT:
        raise ManifestError(f"{where}: format {value.get('format')!r}, expected {FORMAT!r}")
    if not isinstance(value.get("stages", []), list):
        raise ManifestError(f"{where}: stages: expected a list of stage records")
    m = dict(value)
    warn: list[str] = []
    _field(m, "name", _is_str, folder.name, warn)
    for key in ("created", "toolchain", "target"):
        _field(m, key, _opt_str, None, warn)
    _field(m, "env", _str_map, {}, warn)
    _field(m, "versions", _versions, {}, warn)
    _field(m, "status", _status, {"code": "interrupted", "text": "status unreadable"}, warn)
    _field(m, "extra", _is_dict, {}, warn)
    m["kernel"] = _kernel(m.get("kernel"), folder, warn)
    m["stages"] = [s for i, s in enumerate(m.get("stages", [])) if _stage(s, i, folder, warn)]
    m["extra"] = _extra(dict(m.get("extra") or {}), folder, warn)
    return m, [f"{where}: {w}" for w in warn]


def _field(m: dict[str, Any], key: str, ok: Callable[[Any], bool], default: Any,
           warn: list[str], where: str = "") -> None:  # fmt: skip
    if key in m and not ok(m[key]):
        warn.append(f"{where}{key}: {_short(m[key])} is not what the format allows; ignored")
        m[key] = default


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _opt_str(v: Any) -> bool:
    return v is None or isinstance(v, str)


def _is_dict(v: Any) -> bool:
    return isinstance(v, dict)


def _str_map(v: Any) -> bool:
    return isinstance(v, dict) and all(isinstance(x, str) for x in v.values())


def _versions(v: Any) -> bool:
    return isinstance(v, dict) and all(x is None or isinstance(x, str) for x in v.values())


def _status(v: Any) -> bool:
    code = v.get("code") if isinstance(v, dict) else None
    return isinstance(code, str) and code in STATUS_TEXT and _opt_str(v.get("text"))


def _number(v: Any) -> bool:
    """A time in seconds: finite numbers past a few years add up to infinity (1.7e308 twice),
    which no total, sort or JSON page takes."""
    return isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v <= _SECONDS_MAX


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _path_field(rec: dict[str, Any], key: str, folder: Path, where: str,
                warn: list[str]) -> None:  # fmt: skip
    value = rec.get(key)
    if value is None:
        return
    if inside(folder, value) is None:
        warn.append(f"{where}.{key}: {_short(value)} is not a path inside the Run folder; not read")
        rec[key] = None


def _kernel(value: Any, folder: Path, warn: list[str]) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        warn.append(f"kernel: {_short(value)} is not an object; ignored")
        return None
    k = dict(value)
    for key in ("name", "file"):
        _field(k, key, _opt_str, None, warn, "kernel.")
    _path_field(k, "source", folder, "kernel", warn)
    if "first_line" in k and not (_int(k["first_line"]) and k["first_line"] >= 1):
        warn.append(f"kernel.first_line: {_short(k['first_line'])} is not a line number; 1 used")
        k["first_line"] = 1
    _field(k, "signature", _str_map, {}, warn, "kernel.")
    _field(k, "constexprs", _is_dict, {}, warn, "kernel.")
    return k


def _stage(s: Any, i: int, folder: Path, warn: list[str]) -> bool:
    where = f"stages[{i}]"
    if not isinstance(s, dict) or not isinstance(s.get("name"), str) or not s["name"]:
        warn.append(f"{where}: a stage record needs a name; the stage is left out")
        return False
    for key in ("log", "artifact"):
        _path_field(s, key, folder, where, warn)
    checks: dict[str, tuple[Callable[[Any], bool], Any]] = {
        "command": (lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), []),
        "returncode": (lambda v: v is None or _int(v), None),
        "seconds": (lambda v: v is None or _number(v), None),
        "timings": (lambda v: isinstance(v, dict) and all(map(_number, v.values())), {}),
        "status": (lambda v: v in STAGE_STATUS, None),
    }
    for key, (ok, default) in checks.items():
        if key in s and not ok(s[key]):
            warn.append(f"{where}.{key}: {_short(s[key])} is not what the format allows; ignored")
            s[key] = default
    return True


def _sweep(v: Any) -> bool:
    return isinstance(v, dict) and isinstance(v.get("configs", []), list)


# The records of `extra` that readers look inside, with the shape they need: one of another
# shape is left out (absent means what the format says for a Run that does not name it).
_EXTRA_SHAPES: dict[str, Callable[[Any], bool]] = {
    "passes_captured": lambda v: isinstance(v, bool),
    "recompile": _is_dict,
    "autotune": _sweep,
    "planned_stages": lambda v: isinstance(v, list),
}


def _shaped(extra: dict[str, Any], warn: list[str]) -> None:
    for key, ok in _EXTRA_SHAPES.items():
        if key in extra and not ok(extra[key]):
            warn.append(f"extra.{key}: {_short(extra[key])} is not what the format allows; "
                        "left out")  # fmt: skip
            del extra[key]


def _extra(extra: dict[str, Any], folder: Path, warn: list[str]) -> dict[str, Any]:
    for key in ("captured_from", "source_file"):
        _field(extra, key, _opt_str, None, warn, "extra.")
    _shaped(extra, warn)
    if extra.get("captured_from"):
        _path_field(extra, "captured_from", folder, "extra", warn)
    for key in CACHE_KEYS:
        if key not in extra:
            continue
        path = inside(folder, extra[key])
        if path is None or not is_cache_entry(path):
            warn.append(f"extra.{key}: {_short(extra[key])} is not a Triton cache entry "
                        "inside the Run folder; not read")  # fmt: skip
            extra[key] = None
    inputs = extra.get("stage_inputs")
    if inputs is not None:
        if not isinstance(inputs, dict):
            inputs = {}
        for stage in list(inputs):
            _path_field(inputs, stage, folder, "extra.stage_inputs", warn)
        extra["stage_inputs"] = inputs
    return extra


def is_cache_entry(path: Path) -> bool:
    """Whether `path` is one Triton cache entry: a folder of plain files (no subfolders, no
    symlinks) holding a kernel's stage files or its `__grp__` group file."""
    try:
        if path.is_symlink() or not path.is_dir():
            return False
        entries = list(path.iterdir())
    except OSError:
        return False
    if len(entries) > _CACHE_MAX_FILES:
        return False
    if any(e.is_symlink() or not e.is_file() for e in entries):
        return False
    names = [e.name for e in entries]
    stage_suffixes = (".ttir", ".ttadapter", ".bcmlir", ".ttgir", ".llir", ".ptx", ".amdgcn")
    return any(n.endswith(stage_suffixes) or n.startswith("__grp__") for n in names)
