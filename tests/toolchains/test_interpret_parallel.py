"""Interpreted launches whose programs run in several processes compute exactly what plain
`TRITON_INTERPRET=1` computes, byte for byte: kernels whose programs touch disjoint memory
(split across processes), and kernels where they do not (one program reads what another
wrote, programs write the same bytes, atomics, strided columns), which must come out as the
sequential run leaves them (real triton-ascend, real CPU interpreter both sides)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.toolchains.conftest import needs_ascend

pytestmark = [pytest.mark.ascend, needs_ascend]

KERNELS = '''
import torch
import triton
import triton.language as tl


@triton.jit
def axpy(y_ptr, x_ptr, n, a, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    x = tl.load(x_ptr + offs, mask=keep, other=0.0)
    for i in range(3):
        x = tl.math.exp(x * 0.5) + a * i
    tl.store(y_ptr + offs, x, mask=keep)


@triton.jit
def row_stats(out_ptr, x_ptr, cols, BLOCK: tl.constexpr):
    row, part = tl.program_id(0), tl.program_id(1)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=-float("inf"))
    tl.store(out_ptr + row * 2 + part, tl.max(x, 0) if part == 0 else tl.sum(tl.where(offs < cols, 1.0, 0.0), 0))


@triton.jit
def chain(y_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)  # program p reads what program p - 1 wrote
    offs = tl.arange(0, BLOCK)
    prev = tl.load(y_ptr + (pid - 1) * BLOCK + offs, mask=(offs >= 0) & (pid > 0), other=0.0)
    tl.store(y_ptr + pid * BLOCK + offs, prev * 1.5 + pid)


@triton.jit
def last_writer(y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)  # every program writes the same bytes
    tl.store(y_ptr + offs, offs * 0.0 + tl.program_id(0))


@triton.jit
def count(hits_ptr, order_ptr, BLOCK: tl.constexpr):
    seen = tl.atomic_add(hits_ptr, 1)
    offs = tl.arange(0, BLOCK)
    tl.store(order_ptr + tl.program_id(0) * BLOCK + offs, offs * 0 + seen)


@triton.jit
def columns(y_ptr, x_ptr, rows, cols, BLOCK: tl.constexpr):
    col = tl.program_id(0)  # program c writes column c: its bytes interleave with the others'
    offs = tl.arange(0, BLOCK)
    keep = offs < rows
    x = tl.load(x_ptr + offs * cols + col, mask=keep)
    tl.store(y_ptr + offs * cols + col, x * 2.0 + col, mask=keep)


@triton.jit
def tiles(y_ptr, x_ptr, rows, COLS: tl.constexpr, TILE: tl.constexpr):
    pid = tl.program_id(0)  # block pointers: whole rows of a tile, the last tile ragged
    src = tl.make_block_ptr(x_ptr, (rows, COLS), (COLS, 1), (pid * TILE, 0), (TILE, COLS), (1, 0))
    dst = tl.make_block_ptr(y_ptr, (rows, COLS), (COLS, 1), (pid * TILE, 0), (TILE, COLS), (1, 0))
    tile = tl.load(src, boundary_check=(0,), padding_option="zero")
    tl.store(dst, tile * 3.0 - pid, boundary_check=(0,))


@triton.jit
def noisy(y_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + pid * BLOCK + offs, offs * 0.0 + pid)
    if pid == 5:
        print("program five ran")


def run(launch):
    """Every launch, through `launch(kernel, grid, args, kwargs)`: name -> output array."""
    g = torch.Generator().manual_seed(7)
    x = torch.randn(5000, generator=g)
    y = torch.empty_like(x)
    launch(axpy, (40,), (y, x, 5000, 0.25), {"BLOCK": 128})
    m = torch.randn(24, 100, generator=g)
    stats = torch.zeros(24, 2)
    launch(row_stats, (24, 2), (stats, m, 100), {"BLOCK": 128})
    c = torch.zeros(12 * 64)
    launch(chain, (12,), (c,), {"BLOCK": 64})
    w = torch.zeros(64)
    launch(last_writer, (9,), (w,), {"BLOCK": 64})
    hits, order = torch.zeros(1, dtype=torch.int32), torch.zeros(10 * 64, dtype=torch.int32)
    launch(count, (10,), (hits, order), {"BLOCK": 64})
    src, out = torch.randn(96, 16, generator=g), torch.zeros(96, 16)
    launch(columns, (16,), (out, src, 96, 16), {"BLOCK": 128})
    rows = torch.randn(60, 32, generator=g)
    tiled = torch.full((60, 32), 5.0)
    launch(tiles, (8,), (tiled, rows, 60), {"COLS": 32, "TILE": 8})
    loud = torch.zeros(8 * 64)
    launch(noisy, (8,), (loud,), {"BLOCK": 64})
    named = {"tiles": tiled, "noisy": loud, "axpy": y, "row_stats": stats, "chain": c, "last_writer": w, "hits": hits,
             "order": order, "columns": out}
    return {k: v.numpy().copy() for k, v in named.items()}
'''

PLAIN = """
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import kernels
np.savez(sys.argv[2], **kernels.run(lambda k, grid, a, kw: k[grid](*a, **kw)))
"""


def _plain(folder: Path) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRITON_")}
    env["TRITON_INTERPRET"] = "1"
    out = folder / "plain.npz"
    done = subprocess.run(
        [sys.executable, "-c", PLAIN, str(folder), str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("program five ran") == 1
    with np.load(out) as found:
        return {k: found[k] for k in found.files}


def _ours(folder: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], int, int]:
    from ascend_ir_lab.toolchains.ascend import interpret_parallel
    from ascend_ir_lab.toolchains.ascend.interpret import interpret_launch

    forks, kept = [], []
    real_fork, real_copy = os.fork, interpret_parallel._copy_in

    def fork() -> int:
        forks.append(1)
        return real_fork()

    monkeypatch.setattr(interpret_parallel, "_WORTH_FORKING_S", 0.0)  # every launch may split
    monkeypatch.setattr(interpret_parallel, "_cores", lambda: 3)

    def copy_in(*args: Any) -> None:
        kept.append(1)
        real_copy(*args)

    monkeypatch.setattr(os, "fork", fork)
    monkeypatch.setattr(interpret_parallel, "_copy_in", copy_in)
    monkeypatch.syspath_prepend(str(folder))
    import kernels  # type: ignore[import-not-found]

    return kernels.run(interpret_launch), len(forks), len(kept)


def test_split_launches_match_the_plain_interpreter_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "kernels.py").write_text(KERNELS)
    plain = _plain(tmp_path)
    ours, forks, kept = _ours(tmp_path, monkeypatch)
    assert forks == 2 * 7  # two forked shares per launch; the atomic one is never split
    assert (
        capsys.readouterr().out.count("program five ran") == 1
    )  # printed once, here (a forked print would be lost)
    assert kept == 2 * 3  # axpy's, row_stats's, tiles's shares are kept; the others run in order
    assert sorted(ours) == sorted(plain)
    for name in plain:
        assert ours[name].dtype == plain[name].dtype, name
        assert ours[name].tobytes() == plain[name].tobytes(), name
    # what the sequential order alone gives: a chain of programs, the last writer, atomics
    assert plain["last_writer"][0] == 8.0
    assert sorted(set(plain["order"].tolist())) == list(range(10))
    assert plain["chain"][-1] != 0.0


def test_beside_a_compile_only_a_long_launch_is_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ascend_ir_lab.toolchains.ascend import interpret_parallel

    (tmp_path / "kernels.py").write_text(KERNELS)
    plain = _plain(tmp_path)
    # a launch that would be split alone runs in order while its compile holds a core ...
    monkeypatch.setattr(interpret_parallel, "_WORTH_FORKING_BESIDE_S", 1e9)
    with interpret_parallel.beside_a_compile():
        ours, forks, _ = _ours(tmp_path, monkeypatch)
    assert forks == 0
    assert all(ours[name].tobytes() == plain[name].tobytes() for name in plain)
    # ... and one long enough is split all the same; after the block the usual rule holds
    monkeypatch.setattr(interpret_parallel, "_WORTH_FORKING_BESIDE_S", 0.0)
    with interpret_parallel.beside_a_compile():
        ours, forks, _ = _ours(tmp_path, monkeypatch)
    assert forks == 2 * 7 and interpret_parallel._beside == 0
    capsys.readouterr()
