"""debug_switches / patched_environ: the environment comes back exactly, also after errors."""

from __future__ import annotations

import os

import pytest

from ascend_ir_lab.toolchains.common.env import (
    debug_switches,
    patched_environ,
    relevant_env,
    switch_values,
)


def test_environment_restored_exactly_after_exception(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_DEBUG", "7")
    monkeypatch.delenv("MLIR_ENABLE_DUMP", raising=False)
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    before = dict(os.environ)
    with pytest.raises(RuntimeError, match="boom"):
        with debug_switches(debug=True, dump="add_kernel", interpret=False, timing=True):
            assert os.environ["TRITON_DEBUG"] == "1"
            assert os.environ["MLIR_ENABLE_DUMP"] == "add_kernel"
            assert os.environ["TRITON_INTERPRET"] == "0"
            assert os.environ["MLIR_ENABLE_TIMING"] == "1"
            os.environ["TRITON_DEBUG"] = "changed inside"
            raise RuntimeError("boom")
    assert dict(os.environ) == before


def test_every_switch_of_the_guide_has_a_keyword(tmp_path: os.PathLike[str]) -> None:
    values = switch_values(
        debug=True,
        always_compile=True,
        dump=True,
        llvm_dump=True,
        reproducer_path=tmp_path,
        timing=True,
        llvm_timing=True,
        interpret=True,
        device_print=True,
    )
    assert sorted(values) == sorted(
        [
            "TRITON_DEBUG",
            "TRITON_ALWAYS_COMPILE",
            "MLIR_ENABLE_DUMP",
            "LLVM_IR_ENABLE_DUMP",
            "TRITON_REPRODUCER_PATH",
            "MLIR_ENABLE_TIMING",
            "LLVM_ENABLE_TIMING",
            "TRITON_INTERPRET",
            "TRITON_DEVICE_PRINT",
        ]
    )
    assert values["TRITON_REPRODUCER_PATH"] == str(tmp_path)
    assert switch_values() == {}


def test_dump_rejects_other_types() -> None:
    with pytest.raises(TypeError, match="kernel name"):
        switch_values(dump=3)  # type: ignore[arg-type]


def test_patched_environ_removes_and_restores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_CACHE_DIR", "/somewhere")
    with patched_environ({"TRITON_CACHE_DIR": None, "NEW_VAR_FOR_TEST": "x"}) as applied:
        assert "TRITON_CACHE_DIR" not in os.environ
        assert applied == {"NEW_VAR_FOR_TEST": "x"}
    assert os.environ["TRITON_CACHE_DIR"] == "/somewhere"
    assert "NEW_VAR_FOR_TEST" not in os.environ


def test_relevant_env_keeps_toolchain_variables_only() -> None:
    env = {
        "HOME": "/root",
        "TRITON_DEBUG": "1",
        "MLIR_ENABLE_DUMP": "1",
        "PATH": "/bin",
        "ASCEND_HOME_PATH": "/usr/local/Ascend",
    }
    assert relevant_env(env) == {
        "ASCEND_HOME_PATH": "/usr/local/Ascend",
        "MLIR_ENABLE_DUMP": "1",
        "TRITON_DEBUG": "1",
    }
