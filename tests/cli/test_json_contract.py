"""Every command's `--json` against docs/cli-json.schema.json: one meaning, one type per key."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.conftest import ASCEND, DATA

SCHEMA = json.loads((Path(__file__).parents[2] / "docs" / "cli-json.schema.json").read_text())
GLOSSARY = SCHEMA["$defs"]["keys"]["properties"]
FINE = str(ASCEND / "matmul.bishengir.log.gz")
CHANGED = str(DATA / "llvm" / "changed.log")


def cli(*args: str, env: dict[str, str] | None = None) -> Any:
    exe = shutil.which("ascend-ir-lab") or ""
    cmd = [exe] if exe else [sys.executable, "-m", "ascend_ir_lab"]
    r = subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _validate(value: Any, ref: str) -> None:
    jsonschema.validate(value, {"$defs": SCHEMA["$defs"], "$ref": ref})


def _walk(value: Any, where: str) -> int:
    """Check every key of every object against the glossary; returns how many were checked."""
    checked = 0
    if isinstance(value, dict):
        for key, item in value.items():
            assert key in GLOSSARY, f"{where}: key {key!r} is in no glossary entry"
            _validate(item, f"#/$defs/keys/properties/{key}")
            checked += 1
            if key not in ("counts", "files"):  # their keys are op names and file records
                checked += _walk(item, f"{where}.{key}")
    elif isinstance(value, list):
        for item in value:
            checked += _walk(item, where)
    return checked


COMMANDS = [
    ("inspect", ["inspect", FINE, "--json"]),
    ("inspect", ["inspect", CHANGED, "--json"]),
    ("find", ["find", FINE, "hivm.hir.set_flag", "--json"]),
    ("search", ["search", FINE, "PIPE_ALL", "--json"]),
    ("sync", ["sync", FINE, "--json"]),
    ("ops", ["ops", FINE, "last", "--json"]),
    ("source", ["source", FINE, "12", "--file", "matmul.py", "--json"]),
]


@pytest.mark.parametrize(
    ("name", "argv"), COMMANDS, ids=[" ".join(c[1][:1] + c[1][2:3]) for c in COMMANDS]
)
def test_every_read_command_keeps_the_contract(name: str, argv: list[str]) -> None:
    out = cli(*argv)
    _validate(out, f"#/$defs/{name}")
    assert _walk(out, name) > 0


def test_pass_is_the_name_and_arg_the_argument_everywhere() -> None:
    dumps = {d["index"]: d for d in cli("inspect", FINE, "--json")["dumps"]}
    for record in (
        cli("find", FINE, "hivm.hir.set_flag", "--json")
        + cli("search", FINE, "PIPE_ALL", "--json")["changes"]
    ):
        d = dumps[record["index"]]
        assert (record["pass"], record["arg"], record["scope"]) == (d["pass"], d["arg"], d["scope"])
    sync = cli("sync", FINE, "--json")
    assert (sync["pass"], sync["arg"]) == (
        dumps[sync["index"]]["pass"],
        dumps[sync["index"]]["arg"],
    )


def test_changed_is_null_where_the_log_cannot_say() -> None:
    out = cli("inspect", CHANGED, "--json")
    assert [d["changed"] for d in out["dumps"]] == [None, True]
    assert [d["phase"] for d in out["dumps"]] == ["start", "after"]
    banners = [(m["pass"], m["banner"]) for m in out["messages"] if m["banner"]]
    assert ("GlobalDCEPass", "unchanged") in banners


def test_cache_list_keeps_the_contract(tmp_path: Path) -> None:
    shutil.copytree(ASCEND / "cache", tmp_path / "cache")
    env = {**os.environ, "TRITON_CACHE_DIR": str(tmp_path / "cache"),
           "TRITON_DUMP_DIR": str(tmp_path / "none")}  # fmt: skip
    out = cli("cache", "list", "--json", env=env)
    _validate(out, "#/$defs/cache")
    assert _walk(out, "cache") > 0
