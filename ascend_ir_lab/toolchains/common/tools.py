"""Find the Ascend tools and their versions (each looked up once per process)."""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import importlib.util
import os
import shutil
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

from ascend_ir_lab.errors import ToolNotFoundError
from ascend_ir_lab.toolchains.common.process import run_query

# tool -> the pip package that ships it
PACKAGES = {
    "bishengir-compile": "ascendnpu-ir",
    "bishengir-opt": "ascendnpu-ir",
    "triton-adapter-opt": "triton-ascend",
}


def _package_dir(module: str) -> Path | None:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


@functools.cache
def find_tool(name: str) -> Path:
    """The executable for `name`: $PATH first (as triton-ascend does), then the pip package."""
    on_path = shutil.which(name)
    if on_path:
        return Path(on_path)
    candidates: list[Path] = []
    if name.startswith("bishengir-"):
        pkg = _package_dir("ascendnpuir")
        if pkg is not None:
            candidates.append(pkg / "bin" / name)
    elif name == "triton-adapter-opt":
        pkg = _package_dir("triton")
        if pkg is not None:
            candidates.append(pkg / "backends" / "ascend" / name)
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return path
    raise ToolNotFoundError(name, PACKAGES.get(name, name))


def npu_compiler_present() -> bool:
    """Whether CANN's device compiler is where triton-ascend's driver looks for it (`bisheng`
    on PATH, else `$TRITON_NPU_COMPILER_PATH/ccec`): without it no NPU driver is active, and
    saying so needs neither triton nor a driver probe (half a second of imports)."""
    root = os.environ.get("TRITON_NPU_COMPILER_PATH", "")
    return bool(shutil.which("bisheng") or shutil.which(os.path.join(root, "ccec")))


@functools.lru_cache(maxsize=1)
def npu_available() -> bool:
    """Whether Triton has an active NPU driver on this host (False: launches cannot run).

    Asked once per process (the driver probe warns about missing CANN tools each time it
    runs); without CANN's compiler no driver can be active, and none is probed."""
    if not npu_compiler_present():
        return False
    try:
        from triton.runtime import driver

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return str(driver.active.get_current_target().backend) == "npu"
    except Exception:  # noqa: BLE001 - "0 active drivers", no torch_npu, no CANN: all mean none
        return False


def triton_ascend_available() -> bool:
    """Whether triton-ascend (importing as `triton`, with the ascend backend) is installed."""
    try:
        return importlib.util.find_spec("triton.backends.ascend") is not None
    except ModuleNotFoundError:
        return False


def _dist_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


_deadline: list[float] = []  # monotonic times by which every query must have ended


@contextlib.contextmanager
def query_budget(seconds: float) -> Iterator[None]:
    """Within the block, no tool query (`--version`, `--help`) runs past `seconds` from now:
    a command's overall timeout bounds the queries made on its way."""
    _deadline.append(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.pop()


def query(tool: str | os.PathLike[str], *args: str, timeout: float = 60) -> str | None:
    """What a quick query such as `tool --version` or `tool --help` prints (its stdout, else
    its stderr), with the environment passed explicitly; None when the tool cannot run or
    does not answer in time (its whole process group is then killed)."""
    if _deadline:
        timeout = min(timeout, min(_deadline) - time.monotonic())
        if timeout <= 0:
            return None
    out = run_query([str(tool), *args], timeout=timeout, env=os.environ)
    return None if out is None else (out.stdout or out.stderr)


def first_line(text: str | None) -> str | None:
    """The first non-empty line of `text`, stripped."""
    lines = (text or "").strip().splitlines()
    return lines[0].strip() if lines else None


@functools.cache
def bishengir_version_line() -> str | None:
    """First line of `bishengir-compile --version`, or None if it cannot be run."""
    try:
        return first_line(query(find_tool("bishengir-compile"), "--version", timeout=30))
    except ToolNotFoundError:
        return None


def cann_version() -> str | None:
    """The CANN toolkit version from $ASCEND_HOME_PATH, or None where CANN is absent."""
    home = os.environ.get("ASCEND_HOME_PATH")
    if not home:
        return None
    for info in ("version.cfg", "version.info", "ascend_toolkit_install.info"):
        path = Path(home) / info
        if path.is_file():
            for line in path.read_text(errors="replace").splitlines():
                if "version" in line.lower() and "=" in line:
                    return line.split("=", 1)[1].strip()
    return "unknown"


@functools.cache
def _static_versions() -> dict[str, str | None]:
    return {
        "triton-ascend": _dist_version("triton-ascend"),
        "ascendnpu-ir": _dist_version("ascendnpu-ir"),
        "bishengir-compile": bishengir_version_line(),
        "torch": _dist_version("torch"),
        "torch-npu": _dist_version("torch-npu") or _dist_version("torch_npu"),
    }


def versions() -> dict[str, str | None]:
    """Versions of everything in the Ascend toolchain (None: not installed)."""
    return {**_static_versions(), "cann": cann_version()}


@functools.cache
def bishengir_is_regbased() -> bool:
    """Whether bishengir-compile is the register-based build (triton-ascend's own test)."""
    try:
        return "reg-based" in (query(find_tool("bishengir-compile"), "--help", timeout=30) or "")
    except ToolNotFoundError:
        return False
