"""What every toolchain shares: processes with timeouts and captured output, tool lookup and
versions, environment switches set and restored exactly, kernel arguments and triton's own
specialisation of a launch, the Triton cache, collections of Runs, and any MLIR `*-opt` tool.
"""
