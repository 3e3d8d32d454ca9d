"""A kernel line that Python itself cannot run (a conditional expression inside a tuple
swap, as NPU matmul scripts write it) fails in plain `TRITON_INTERPRET=1` and in ours alike;
ours names the file, line and code, and says the limit is the interpreter's (real
triton-ascend, real CPU interpreter both sides)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.toolchains.conftest import needs_ascend

pytestmark = [pytest.mark.ascend, needs_ascend]

SCRIPT = """
import os
import torch
import triton
import triton.language as tl


@triton.jit
def lcm_start(out_ptr, a, b):
    x = (a, b)[2]  # past the tuple's end
    tl.store(out_ptr, x * 10)


def run(launch):
    out = torch.zeros(1, dtype=torch.int32)
    launch(lcm_start, (1,), (out, 3, 5), {})
    return out


if __name__ == "__main__":
    run(lambda k, grid, a, kw: k[grid](*a, **kw))
"""


def test_a_line_python_cannot_run_fails_both_ways_and_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from triton.runtime.errors import InterpreterError

    from ascend_ir_lab.toolchains.ascend.interpret import interpret_launch

    script = tmp_path / "swap_kernel.py"
    script.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRITON_")}
    plain = subprocess.run(
        [sys.executable, str(script)],
        env={**env, "TRITON_INTERPRET": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert plain.returncode != 0
    assert "IndexError('tuple index out of range')" in plain.stderr
    monkeypatch.syspath_prepend(str(tmp_path))
    import swap_kernel  # type: ignore[import-not-found]

    with pytest.raises(InterpreterError) as failed:
        swap_kernel.run(interpret_launch)
    message = str(failed.value)
    assert message.startswith("IndexError('tuple index out of range'); ")
    assert message.endswith("fails at swap_kernel.py:10: x = (a, b)[2]  # past the tuple's end")
    assert "Triton's CPU interpreter runs the kernel's code as Python" in message


def test_the_line_is_named_in_a_notebook_cell_too() -> None:
    from IPython.core.interactiveshell import InteractiveShell
    from triton.runtime.errors import InterpreterError

    from ascend_ir_lab.toolchains.ascend.interpret import interpret_launch

    shell = InteractiveShell.instance()
    cell = SCRIPT.lstrip("\n").split("\n\nif __name__")[0]  # the indexing at line 9 of the cell
    assert shell.run_cell(cell, store_history=False).success
    with pytest.raises(InterpreterError) as failed:
        shell.user_ns["run"](interpret_launch)
    assert "<ipython-input-" in str(failed.value)
    assert str(failed.value).endswith(":9: x = (a, b)[2]  # past the tuple's end")
