"""`%ir_report` and `RunView.save_html` through a real IPython shell, on real Runs."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

pytest.importorskip("IPython")

from nb_helpers import run_cell, shown  # noqa: E402

from ascend_ir_lab.dumps import open_timeline  # noqa: E402
from tests.conftest import ASCEND  # noqa: E402


@pytest.mark.ascend
def test_report_and_offline_page_of_a_compiled_run(shell, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("triton.backends.ascend", reason="needs triton-ascend (extra 'ascend')")
    shell.user_ns["KERNEL"] = str(ASCEND.parent.parent / "kernels" / "vadd.py")
    result = shell.run_cell(
        f"%%triton_npu --kernel vadd --signature 'x_ptr=*fp32,y_ptr=*fp32,out_ptr=*fp32,n=i32' "
        f"--constexpr BLOCK=1024 --module-scope --name rep-vadd --runs-dir {tmp_path}\n"
        "import importlib.util as u\n"
        "spec = u.spec_from_file_location('k_vadd', KERNEL); m = u.module_from_spec(spec)\n"
        "spec.loader.exec_module(m); vadd = m.vadd\n"
    )
    view = result.result
    assert view is not None and view.status == "ir-complete-no-binary"
    page = view.save_html(tmp_path / "vadd.html")
    text = page.read_text()
    assert "<script" in text and "http://" not in text.replace("http://www.w3.org", "")
    md = shell.run_line_magic(
        "ir_report", f"rep-vadd --pass hivm-graph-sync-solver -o {tmp_path / 'r.zip'}"
    )
    assert "hivm-graph-sync-solver" in md.data
    names = zipfile.ZipFile(tmp_path / "r.zip").namelist()
    assert any(n.endswith(".html") for n in names)
    assert any("bishengir" in n for n in names)
    assert open_timeline(view.run.path).dumps


def test_report_of_a_log_says_it_needs_a_run(shell, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    shell.run_line_magic("ir_load", f"{ASCEND / 'vadd.adapter.log'} --name adapterlog")
    _result, io = run_cell(shell, f"%ir_report adapterlog -o {tmp_path / 'x.zip'}")
    assert "not a Run folder" in shown(io)
    assert not (tmp_path / "x.zip").exists()
