"""The texts of a bug report: the kernel reproducer and the Markdown summary for an issue."""

from __future__ import annotations

import contextlib
import json
import shlex
from collections.abc import Iterable
from typing import Any

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.export.notes import note_where
from ascend_ir_lab.export.report_sync import sync_markdown
from ascend_ir_lab.runs import run_file
from ascend_ir_lab.runs.paths import read_small
from ascend_ir_lab.safe_text import for_terminal, markdown_code, markdown_fenced, markdown_text

__all__ = ["TRACKERS", "branch_style", "kernel_reproducer", "summary_markdown"]

TRACKERS = {
    "Triton-Ascend": "https://gitcode.com/Ascend/triton-ascend/issues",
    "AscendNPU-IR": "https://gitcode.com/Ascend/AscendNPU-IR/issues",
}
_MAX_SOURCE_LINES = 120


def branch_style(names: Iterable[str]) -> str:
    """release/3.2.2 (kernel.ttadapter) or master (kernel.bcmlir), from artifact names."""
    names = [n.removesuffix(".zst") for n in names]  # a Run keeps its IR compressed
    if any(n.endswith(".bcmlir") for n in names):
        return "master (.bcmlir)"
    if any(n.endswith(".ttadapter") for n in names):
        return "release/3.2.2 (.ttadapter)"
    return "unknown (neither .ttadapter nor .bcmlir among the artifacts)"


def kernel_reproducer(run: Any) -> str:
    """The kernel's source with how it was compiled (signature, constexprs, launch) appended."""
    manifest = run.manifest
    kernel = manifest.get("kernel") or {}
    path = run_file(run.path, kernel.get("source"), 64 << 20)
    source = ""
    if path is not None:
        with contextlib.suppress(InputError):
            source = read_small(path, 64 << 20).decode("utf-8", "replace")
    name = _one_line(kernel.get("name") or "kernel")
    sig = kernel.get("signature") or {}
    consts = kernel.get("constexprs") or {}
    launch = (manifest.get("extra") or {}).get("launch")
    target = _one_line(str(manifest.get("target")))
    # a line to paste into a shell: every word from run.json quoted (`'; rm -rf ~ #` as a
    # signature is then text, not a second command)
    again = ["ascend-ir-lab", "compile", f"kernel.py::{name}",
             "--signature", ",".join(f"{k}={v}" for k, v in sig.items()),
             *(f"--constexpr={k}={v}" for k, v in consts.items()),
             "--target", target, "--module-scope"]  # fmt: skip
    if (manifest.get("extra") or {}).get("barrier_all"):
        again.append("--barrier-all")
    tail = [
        "",
        "# ---- ascend-ir-lab: how this kernel was compiled (from run.json) ----",
        f"# target: {target}   status: {_one_line(str((manifest.get('status') or {}).get('code')))}",
        f"SIGNATURE = {json.dumps(sig)}",
        f"CONSTEXPRS = {json.dumps(consts)}",
    ]
    if launch:
        tail.append(f"LAUNCH = {json.dumps(launch, default=str)}")
    tail += [
        "# Recompile offline, every IR of every pass:",
        f"#   {shlex.join(_one_line(word) for word in again)}",
        "",
    ]
    return (
        source.rstrip("\n") + "\n" if source else f"# (the Run kept no source for {name})\n"
    ) + "\n".join(tail)


def _one_line(text: str) -> str:
    """Text safe inside a one-line Python comment of the reproducer (no line breaks)."""
    return " ".join(for_terminal(str(text)).split())


def _env_rows(env: dict[str, Any]) -> list[str]:
    keys = ("target", "npu_model", "cann", "triton-ascend", "ascendnpu-ir", "bishengir-compile",
            "torch", "torch-npu", "branch_style")  # fmt: skip
    rows = ["| | |", "|---|---|"]
    for k in keys:
        value = env.get(k)
        rows.append(f"| {k} | {'—' if value in (None, '') else _cell(str(value))} |")
    if env.get("run_env"):
        rows.append(f"| env | {_cell(' '.join(f'{k}={v}' for k, v in env['run_env'].items()))} |")
    return rows


def _cell(text: str) -> str:
    return markdown_text(text)


def _barrier_section(cmp: dict[str, Any] | None, verdict: dict[str, Any] | None) -> list[str]:
    out = ["## Does barrier-all change the outcome?", ""]
    if cmp is None:
        out.append("No barrier-all Run was given (`--against`); compile one with "
                   "`ascend-ir-lab compile ... --barrier-all` and report again.")  # fmt: skip
        if verdict:
            out.append(f"NPU check recorded: **{markdown_text(str(verdict.get('verdict')))}**: "
                       f"{markdown_text(str(verdict.get('text')))}")  # fmt: skip
        return [*out, ""]
    out += [f"**{cmp['outcome']}**", "", "| | fine-grained | barrier-all |", "|---|---|---|",
            f"| status | {cmp['fine']['status']} | {cmp['barrier_all']['status']} |"]  # fmt: skip
    ops = sorted(set(cmp["fine"]["sync_ops"]) | set(cmp["barrier_all"]["sync_ops"]))
    for op in ops:
        out.append(
            f"| {markdown_text(op)} | {cmp['fine']['sync_ops'].get(op, 0)} | {cmp['barrier_all']['sync_ops'].get(op, 0)} |"
        )
    out.append("")
    first = cmp.get("first_divergence")
    out.append(
        f"{cmp['aligned_passes']} passes aligned, {cmp['differing_passes']} print different IR."
    )
    if first:
        out.append(f"First divergence: {markdown_code(first['pass'])} "
                   f"({markdown_text(first['stage'])}, fine dump "
                   f"{first['fine_dump']}, barrier-all dump {first['barrier_all_dump']}).")  # fmt: skip
    if cmp["substituted"]:
        out.append(
            "Substituted passes: " + ", ".join(markdown_code(s) for s in cmp["substituted"]) + "."
        )
    return [*out, ""]


def _repro_section(facts: dict[str, Any], kernel: str) -> list[str]:
    lines = kernel.splitlines()
    shown = "\n".join(lines[:_MAX_SOURCE_LINES])
    more = (
        f"\n# ... {len(lines) - _MAX_SOURCE_LINES} more lines in repro/kernel.py"
        if len(lines) > _MAX_SOURCE_LINES
        else ""
    )
    out = ["## Minimal reproducer", "", "<details><summary>kernel.py (source, signature, constexprs)</summary>",
           "", markdown_fenced(shown + more, "python"), "</details>", ""]  # fmt: skip
    rep = facts.get("pass_reproducer")
    if rep and "error" in rep:
        out += [f"Pass-level reproducer: not made: {markdown_text(rep['error'])}", ""]
    elif rep:
        out += [f"Pass-level reproducer for {markdown_code(rep['pass'])} (dump {rep['dump']}, "
                f"{markdown_text(rep['scope'])}), files in `repro/pass/`:", "",
                markdown_fenced(rep["command"], "sh"),
                f"Re-run here: {markdown_text(rep['summary'])}.", ""]  # fmt: skip
    return out


def summary_markdown(facts: dict[str, Any], kernel: str) -> str:
    """The issue text: what failed, environment, reproducer, barrier-all, notes, attachments."""
    run = facts["run"]
    status = run.get("status") or {}
    kname = (run.get("kernel") or {}).get("name") or run["name"]
    heading = f"{kname}: {status.get('text') or status.get('code')} ({run.get('target')})"
    out = [f"# {markdown_text(heading)}", "",
           f"Run {markdown_code(run['name'])}, status {markdown_code(str(status.get('code')))}. Made with ascend-ir-lab; the "
           "attached zip holds everything below. File at "
           + " or ".join(f"[{k}]({v})" for k, v in TRACKERS.items()) + ".", "",
           "## Environment", "", *_env_rows(facts["environment"]), ""]  # fmt: skip
    out += _repro_section(facts, kernel)
    out += _barrier_section(facts.get("barrier_all"), facts.get("npu_verdict"))
    out += sync_markdown(facts.get("sync"))
    notes = facts.get("notes") or []
    out += ["## Notes", ""]
    out += [
        f"- pass {markdown_text(note_where(n))}: {markdown_text(n['text'])}" for n in notes
    ] or ["(none)"]
    cache = facts.get("cache_folder")
    out += ["", "## Attached", "",
            "- `logs/`: the full compiler logs (every IR of every pass)",
            "- `ir/`: the IR files the Run kept (ttir, ttadapter / bcmlir, bishengir input)",
            f"- `cache/`: the kernel's Triton cache entry {markdown_code(cache)}, "
            f"{facts.get('cache_files', 0)} files: check it holds nothing private" if cache else
            "- no Triton cache folder was recorded by this Run; `ir/` holds its IR files",
            "- `timeline.html`: every pass, offline, opens from disk",
            "- `sync/report.json`: the sync section as data (checker findings, aligned passes)",
            "- `environment.json`, `run/run.json`, `notes.json`"
            + (", `barrier-all/`" if facts.get("barrier_all") else ""), ""]  # fmt: skip
    left = facts.get("left_out") or []
    if left:
        out += ["Not attached (the Run names them, but they are not its own plain files):", "",
                *(f"- {markdown_text(why)}" for why in left), ""]  # fmt: skip
    return "\n".join(out)
