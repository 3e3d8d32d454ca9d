"""Browser fixtures: Debian's Chromium through Playwright, and real payloads from tests/data."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DATA = Path(__file__).resolve().parents[1] / "data" / "ascend"
KERNELS = Path(__file__).resolve().parents[1] / "kernels"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    reason = None
    if not os.path.exists(CHROMIUM):
        reason = f"{CHROMIUM} is missing (apt-get install -y chromium)"
    else:
        try:
            import playwright  # noqa: F401
        except ImportError:
            reason = "playwright is not installed (pip install playwright)"
    for item in items:
        if "tests/browser" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _real_payload(log: str, title: str) -> dict[str, Any]:
    from ascend_ir_lab.dumps import open_timeline
    from ascend_ir_lab.export import build_payload

    payload: dict[str, Any] = build_payload(open_timeline(DATA / log), title=title)
    json.dumps(payload)  # must be plain JSON
    return payload


@pytest.fixture(scope="session")
def real_payload() -> Any:
    """Function (log name, title) -> payload of a real compiler log from tests/data/ascend."""
    return _real_payload


def open_offline(
    browser: Any, path: Path, selector: str = ".air-passname"
) -> tuple[Any, list[str]]:
    """Open an offline page from file:// with every other request aborted; (page, the URLs
    it tried to fetch)."""
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    fetched: list[str] = []

    def block(route: Any) -> None:
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            fetched.append(route.request.url)
            route.abort()

    page.route("**/*", block)
    page.goto(path.as_uri())
    page.wait_for_selector(selector)
    return page, fetched


@pytest.fixture(scope="session")
def dot_run(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The Run of tests/kernels/dot_at_40.py (a kernel at line 40 of its file), compiled with
    line info by the real tools."""
    import importlib.util

    from ascend_ir_lab.toolchains.common.tools import triton_ascend_available

    if not triton_ascend_available():
        pytest.skip("triton-ascend is not importable: pip install -e '.[ascend]'")
    from ascend_ir_lab.toolchains.ascend.compile import compile_kernel

    spec = importlib.util.spec_from_file_location("_dot_at_40_run", KERNELS / "dot_at_40.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    info = module.COMPILE
    out = tmp_path_factory.mktemp("dot40") / "run"
    return compile_kernel(f"{KERNELS / 'dot_at_40.py'}::{info['kernel']}", signature=info["signature"],
                          constexprs=info["constexprs"], out=out, line_info=True, check=False)  # fmt: skip
