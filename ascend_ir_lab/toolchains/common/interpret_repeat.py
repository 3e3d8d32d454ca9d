"""Repeated launches that cannot change anything are not interpreted again.

Benchmark loops launch the same kernel on the same tensors tens or hundreds of times
(`for _ in range(repeat): kernel[grid](y, x, ...)`, `do_bench`). On a device that costs
microseconds; in Triton's CPU interpreter each launch costs as much as the first. The
interpreter is deterministic: a launch's effect depends only on its kernel, grid, arguments
and the bytes of the memory its tensors live in. So once a launch has left that memory exactly
as it found it (a fixed point: the second `softmax(x) -> y` onto the same `y`), the same launch
on the same bytes would leave them as they are again, and running it is skipped: what the
script reads afterwards is what the interpreter would have written.

`Repeats.seen(...)` answers before a launch, `Repeats.note(...)` learns after it. Launches
with arguments it cannot identify (objects other than tensors, numpy arrays and plain
scalars) are always interpreted.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["Repeats"]

_PLAIN = (int, float, bool, str, bytes, type(None))


def _tensor(value: Any) -> Any:
    """`value` as a torch tensor when it is one (or a numpy array), else None."""
    import torch

    if isinstance(value, torch.Tensor):
        return value
    if type(value).__module__ == "numpy" and hasattr(value, "shape"):
        return torch.from_numpy(value)
    return None


def _identity(value: Any) -> Any:
    """A hashable stand-in for one launch argument (KeyError when there is none)."""
    tensor = _tensor(value)
    if tensor is not None:
        return ("tensor", tensor.data_ptr(), str(tensor.dtype), tuple(tensor.shape),
                tuple(tensor.stride()))  # fmt: skip
    if isinstance(value, _PLAIN):
        return (type(value).__name__, value)
    if type(value).__module__.startswith("triton") or type(value).__name__ == "dtype":
        return ("repr", type(value).__name__, repr(value))
    raise KeyError(type(value).__name__)


class Repeats:
    """The (launch, memory) pairs seen to leave their memory unchanged."""

    def __init__(self) -> None:
        self._fixed: set[tuple[Any, str]] = set()

    @staticmethod
    def key(fn: Any, grid: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        """What identifies the launch, or None when an argument cannot be identified."""
        try:
            return (
                id(fn),
                tuple(grid),
                tuple(_identity(a) for a in args),
                tuple(sorted((k, _identity(v)) for k, v in kwargs.items())),
            )
        except (KeyError, TypeError):
            return None

    @staticmethod
    def memory(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str:
        """A digest of the bytes of every storage the launch's tensors live in."""
        import torch

        digest = hashlib.blake2b(digest_size=16)
        seen: set[int] = set()
        for value in [*args, *kwargs.values()]:
            tensor = _tensor(value)
            if tensor is None:
                continue
            storage = tensor.untyped_storage()
            if storage.data_ptr() in seen:
                continue
            seen.add(storage.data_ptr())
            raw = torch.empty(0, dtype=torch.uint8, device=tensor.device).set_(storage)
            digest.update(raw.cpu().numpy().data)
        return digest.hexdigest()

    def seen(self, key: Any, memory: str) -> bool:
        """Whether this launch on this memory is known to change nothing."""
        return key is not None and (key, memory) in self._fixed

    def note(self, key: Any, before: str, after: str) -> None:
        """Learn from a launch that ran: a fixed point when nothing changed."""
        if key is not None and before == after:
            self._fixed.add((key, before))
