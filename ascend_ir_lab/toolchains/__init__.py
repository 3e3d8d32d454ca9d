"""Start real compilers and capture everything they print into a Run on disk.

The only room that starts processes or touches environment variables. `common/` holds what
every toolchain shares (processes, tool lookup, environment switches, kernel arguments and
specialisation, the Triton cache, Run folders for new Runs); `ascend/` drives triton-ascend,
triton-adapter-opt and bishengir-compile (with the NPU host, the virtual NPU and the pass
reproducer); `triton/` drives upstream Triton for cuda and hip targets.
"""
