"""One compact, versioned payload of a Timeline for every front end (see docs/formats.md)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeGuard

from ascend_ir_lab.dumps import Timeline
from ascend_ir_lab.dumps.index_cache import AnswerStore, answer_store
from ascend_ir_lab.export.format import FORMAT, MIME_TYPE
from ascend_ir_lab.export.notes import clean_notes
from ascend_ir_lab.export.packing import is_packed, unpack_payload
from ascend_ir_lab.export.payload_check import structure_problems
from ascend_ir_lab.forked import Pending, in_parallel

__all__ = [
    "FORMAT",
    "MIME_TYPE",
    "build_payload",
    "capture_info",
    "payload_in_making",
    "validate_payload",
]

_DUMP_KEYS = (
    "i",
    "stage",
    "pass",
    "arg",
    "phase",
    "scope",
    "snap",
    "prev",
    "changed",
    "lines",
    "truncated",
    "ms",
)


def build_payload(
    timeline: Timeline,
    *,
    title: str | None = None,
    source: Mapping[str, Any] | None = None,
    notes: Iterable[Mapping[str, Any]] = (),
    sync_check: bool = True,
) -> dict[str, Any]:
    """The payload of a Timeline: interned lines, snapshots stored once, dumps, messages, notes.

    `source` is `{"file", "text", "first_line"}` of the kernel: `text` the whole file (or
    notebook cell), numbered from its line 1 as IR locations number it, and `first_line` the
    1-based line of the kernel's `def` in it. When it is given (or the Run has one) each
    snapshot gets its IR-line → Python-line map. Notes are taken in the one convention of
    export.notes; those naming a pass the Timeline lacks are dropped with a warning. With
    `sync_check`, the sync checker's findings on the Dumps after the sync pass and on the
    final IR go under `sync_check` (`{"dumps": {"<index>": [finding...]}}`, lines 1-based).
    """
    with payload_in_making(
        timeline, title=title, source=source, notes=notes, sync_check=sync_check
    ) as payload:
        check = payload["sync_check"]
        payload["sync_check"] = check.result() if isinstance(check, Pending) else check
        return payload


@contextlib.contextmanager
def payload_in_making(
    timeline: Timeline,
    *,
    title: str | None = None,
    source: Mapping[str, Any] | None = None,
    notes: Iterable[Mapping[str, Any]] = (),
    sync_check: bool = True,
) -> Iterator[dict[str, Any]]:
    """`build_payload`'s payload, its `sync_check` perhaps still in the making on a second
    core (a `forked.Pending`, which `packing.auto_pack` takes when its turn comes, after
    writing and compressing the rest); a forked copy still at work is stopped on leaving."""
    if not sync_check:
        yield _payload(timeline, timeline.changed_flags(), title, source, notes, {"dumps": {}})
        return
    store = answer_store(timeline.logs, "sync")
    signature = _checker_signature(timeline) if store is not None else ""
    kept = store.get(signature) if store is not None else None
    if _findings_of(kept, len(timeline.dumps)):  # a command before found them on this log
        yield _payload(timeline, timeline.changed_flags(), title, source, notes, kept)
        return
    # The checker reads only the few Dumps it checks (not the whole log's snapshots, which
    # the page needs): it runs on a second core meanwhile, from the start.
    with in_parallel(lambda: _sync_check(timeline, store, signature)) as checked:
        yield _payload(timeline, timeline.changed_flags(), title, source, notes, checked)


def _payload(
    tl: Timeline,
    flags: list[bool],
    title: str | None,
    source: Mapping[str, Any] | None,
    notes: Iterable[Mapping[str, Any]],
    sync: dict[str, Any] | Pending,
) -> dict[str, Any]:
    run = tl.run or {}
    source = dict(source) if source else _run_source(tl)
    stages = tl.stages
    stage_meta = {s.get("name"): s for s in run.get("stages", []) if isinstance(s, dict)}
    snap_of: dict[int, int] = {}  # timeline snapshot id -> payload snapshot index
    snapshots: list[list[int]] = []
    srcmap: list[list[list[int]]] = []
    dumps = []
    src_file = source.get("file") if source else None
    notes = list(notes)
    kept_notes, dropped = clean_notes(notes, [d.label for d in tl.dumps] if notes else [])
    stage_of = {s: k for k, s in enumerate(stages)}
    timings = tl.timings()
    if source:  # only a page with its kernel's source maps lines (and imports the mapping)
        from ascend_ir_lab.analysis.locations import source_map
    snap_ids, (before, after) = tl.snapshot_ids(), tl.neighbours()
    # A Dump's index is its place in `tl.dumps`, as the by-index lists it is zipped with.
    by_index = zip(tl.dumps, snap_ids, before, after, flags, strict=True)
    for d, sid, prev, following, changed in by_index:
        k = snap_of.get(sid)
        if k is None:
            k = snap_of[sid] = len(snapshots)
            snapshots.append(tl.line_ids(d))
            srcmap.append(
                [[i, ln] for i, ln in source_map(tl.lines(d), src_file)] if source else []
            )
        i = d.index
        dumps.append({
            "i": i, "stage": stage_of[d.stage], "pass": d.pass_name, "arg": d.arg,
            "phase": d.phase, "scope": d.scope, "snap": k, "prev": prev, "next": following,
            "changed": changed, "lines": len(snapshots[k]), "truncated": d.truncated,
            "ms": _ms(timings.get(i)) if timings else None,
        })  # fmt: skip
    return {
        "format": FORMAT,
        "title": title or tl.title,
        "meta": {
            k: run[k] for k in ("target", "status", "versions", "toolchain", "name") if k in run
        },
        "lines": tl.line_table,
        "snapshots": snapshots,
        "stages": _stages(stages, stage_meta, run, tl),
        "dumps": dumps,
        "messages": [
            {"stage": stage_of[m.stage], "after": m.after, "level": m.level, "text": m.text}
            for m in tl.messages
        ],
        "source": source or None,
        "srcmap": srcmap,
        "notes": kept_notes,
        "warnings": [*tl.warnings, *dropped],
        "sync_check": sync,
        "capture": {**capture_info(run), "folder": str(tl.path) if tl.run and tl.path else None},
    }


def capture_info(run: Mapping[str, Any]) -> dict[str, Any]:
    """What the viewer's "capture passes" needs: whether this Run holds its per-pass dumps
    (false: a cheap record), and the autotune sweep it belongs to (configs, which one ran,
    which hold their passes; each config's Run by folder name)."""
    extra: dict[str, Any] = run["extra"] if isinstance(run.get("extra"), dict) else {}
    sweep = extra.get("autotune") if isinstance(extra.get("autotune"), dict) else None
    configs = []
    for c in (sweep or {}).get("configs") or []:
        if isinstance(c, dict):
            configs.append({
                "index": c.get("index"), "config": c.get("config"), "status": c.get("status"),
                "passes_captured": bool(c.get("passes_captured")),
                "run": str(c.get("run") or "").replace("\\", "/").rsplit("/", 1)[-1] or None,
            })  # fmt: skip
    return {
        "passes_captured": bool(extra.get("passes_captured", True)),
        "configs": configs,
        "chosen": sweep.get("chosen") if sweep else None,
        "note": str(sweep.get("note") or "") if sweep else "",
    }


def _sync_check(
    tl: Timeline, store: AnswerStore | None = None, signature: str = ""
) -> dict[str, Any]:
    """The checker's findings per Dump, as the viewer draws them (kept in `store`, if any)."""
    from ascend_ir_lab.analysis.sync_timeline import check_timeline

    checked = check_timeline(tl)
    found = {"dumps": {str(i): [f.as_json() for f in r.findings] for i, r in checked.items()}}
    if store is not None:
        store.keep(signature, found)
    return found


def _checker_signature(tl: Timeline) -> str:
    """What the findings depend on besides the log: the kernel's source file the findings
    name lines of, and the code (every analysis module and this one; sizes, mtimes)."""
    here = Path(__file__).resolve()
    parts = [str(((tl.run or {}).get("kernel") or {}).get("file")), str(sys.version_info[:2])]
    with contextlib.suppress(OSError):
        for entry in sorted(os.scandir(here.parent.parent / "analysis"), key=lambda e: e.name):
            if entry.name.endswith(".py"):
                st = entry.stat()
                parts.append(f"{entry.name}:{st.st_size}:{st.st_mtime_ns}")
    st = here.stat()
    return "\0".join([*parts, f"{here.name}:{st.st_size}:{st.st_mtime_ns}"])


def _findings_of(kept: Any, dumps: int) -> TypeGuard[dict[str, Any]]:
    """Whether `kept` is findings as `_sync_check` gives them, on Dumps the Timeline has."""
    found = kept.get("dumps") if isinstance(kept, dict) else None
    if not isinstance(found, dict):
        return False
    return all(
        isinstance(k, str) and k.isdigit() and int(k) < dumps and isinstance(v, list)
        and all(isinstance(f, dict) and isinstance(f.get("line"), int) for f in v)
        for k, v in found.items()
    )  # fmt: skip


def _stages(
    names: list[str], meta: Mapping[Any, Any], run: Mapping[str, Any], tl: Timeline
) -> list[dict[str, Any]]:
    """The payload's stages, each with the `status` a viewer shows when it did not simply end
    well; the stages a cheap record planned but did not run come last, `skipped`."""
    failed = {d.stage for d in tl.dumps if d.phase == "failed"}
    status = run.get("status")
    code = status.get("code") if isinstance(status, dict) else None
    out = [_stage(n, meta.get(n), n in failed, code) for n in names]
    extra = run.get("extra")
    for planned in (extra.get("planned_stages") if isinstance(extra, dict) else None) or []:
        name = planned.get("name") if isinstance(planned, dict) else None
        if isinstance(name, str) and name not in names:
            command = planned.get("command")
            command = [str(c) for c in command] if isinstance(command, list) else []
            out.append({"name": name, "command": command, "returncode": None, "status": "skipped"})
    return out


def _stage(
    name: str, meta: Mapping[str, Any] | None, pass_failed: bool, run_code: str | None
) -> dict[str, Any]:
    """One stage. `status`: the Run's own (`timed-out`, `interrupted`: the tool was stopped);
    else `no-binary` for a stage that printed every pass and failed only at the binary step
    (the Run says `ir-complete-no-binary`: no hivmc without CANN), `failed` for any other
    non-zero exit or a failed pass; absent when the stage ended well."""
    meta = meta or {}
    out = {"name": name, "command": meta.get("command"), "returncode": meta.get("returncode")}
    rc = meta.get("returncode")
    if meta.get("status"):
        out["status"] = meta["status"]
    elif pass_failed:
        out["status"] = "failed"
    elif isinstance(rc, int) and rc != 0:
        out["status"] = "no-binary" if run_code == "ir-complete-no-binary" else "failed"
    return out


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 3)


SOURCE_MAX_BYTES = 64 << 20  # a kernel's file; anything larger is not one


def _run_source(tl: Timeline) -> dict[str, Any]:
    """The kernel source a Run folder carries, if any."""
    from ascend_ir_lab.errors import InputError
    from ascend_ir_lab.runs.paths import read_small, run_file

    kernel = (tl.run or {}).get("kernel") or {}
    path = run_file(tl.path, kernel.get("source"), SOURCE_MAX_BYTES) if tl.path else None
    if path is None:
        return {}
    try:
        text = read_small(path, SOURCE_MAX_BYTES).decode("utf-8", "replace")
    except InputError:
        return {}
    return {
        "file": kernel.get("file") or path.name,
        "text": text,
        "first_line": int(kernel.get("first_line") or 1),
    }


def validate_payload(payload: Mapping[str, Any]) -> list[str]:
    """Problems that would make a viewer render wrongly; empty when the payload is sound.

    A packed payload (export.packing) is unpacked first; data that does not unpack is a problem.
    """
    problems: list[str] = []
    if is_packed(payload):
        try:
            payload = unpack_payload(payload)
        except ValueError as e:
            return [str(e)]
    if not isinstance(payload, Mapping):
        return ["the payload is not a JSON object"]
    if payload.get("format") != FORMAT:
        problems.append(f"format is {payload.get('format')!r}, expected {FORMAT!r}")
    problems += _reference_problems(payload)
    problems += structure_problems(payload)
    problems += _sync_check_problems(payload)
    return problems


def _reference_problems(payload: Mapping[str, Any]) -> list[str]:
    """Snapshots naming lines, and Dumps naming snapshots, that do not exist (20 at most)."""
    problems: list[str] = []
    lines = payload.get("lines") or []
    snaps = payload.get("snapshots") or []
    n_lines, n_snaps = len(lines), len(snaps)
    for k, snap in enumerate(snaps):
        if any(not isinstance(i, int) or not 0 <= i < n_lines for i in snap):
            problems.append(f"snapshot {k} refers to a line that does not exist")
            break
    for d in payload.get("dumps") or []:
        missing = [key for key in _DUMP_KEYS if key not in d]
        if missing:
            problems.append(f"dump {d.get('i')} lacks {', '.join(missing)}")
        elif not 0 <= d["snap"] < n_snaps:
            problems.append(f"dump {d['i']} refers to snapshot {d['snap']}, which does not exist")
        if len(problems) > 20:
            break
    return problems


def _sync_check_problems(payload: Mapping[str, Any]) -> list[str]:
    """A `sync_check` finding must name a Dump that exists and a line inside its snapshot."""
    check = payload.get("sync_check")
    if check is None:
        return []
    dumps = check.get("dumps") if isinstance(check, Mapping) else None
    if not isinstance(dumps, Mapping):
        return ["sync_check has no 'dumps' object"]
    by_index = {d.get("i"): d for d in payload.get("dumps") or []}
    snaps = payload.get("snapshots") or []
    for key, findings in dumps.items():
        d = by_index.get(int(key)) if str(key).isdigit() else None
        if d is None or not isinstance(findings, list):
            return [f"sync_check names dump {key!r}, which does not exist"]
        n = len(snaps[d["snap"]]) if 0 <= d.get("snap", -1) < len(snaps) else 0
        if any(not isinstance(f.get("line"), int) or not 1 <= f["line"] <= n for f in findings):
            return [f"sync_check of dump {key} points at a line outside its IR"]
    return []
