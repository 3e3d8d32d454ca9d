"""triton-ascend into Runs: TTIR in this process, then triton-adapter-opt and bishengir-compile.

Offline compiles (`compile`), the exact options triton-ascend passes (`options`), launches taken
over in a cell or a script (`launch`, `script_capture`, `offline_script`), the virtual NPU for
hosts without one, the NPU host workflow (`npu_host`, `npu_script`, `host_facts`), autotune
sweeps, rebuilds for noise, and the pass-level reproducer (`repro`).
"""
