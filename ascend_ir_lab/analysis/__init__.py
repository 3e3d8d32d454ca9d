"""Questions about a Timeline, answered as plain data (no rendering, no processes)."""
