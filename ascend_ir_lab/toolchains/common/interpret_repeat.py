"""Repeated launches that cannot change anything are not interpreted again.

Benchmark loops launch the same kernel on the same tensors tens or hundreds of times
(`for _ in range(repeat): kernel[grid](y, x, ...)`, `do_bench`). On a device that costs
microseconds; in Triton's CPU interpreter each launch costs as much as the first. The
interpreter is deterministic: a launch's effect depends only on its kernel, grid, arguments
and the bytes of the memory its tensors live in. So once a launch has left that memory exactly
as it found it (a fixed point: the second `softmax(x) -> y` onto the same `y`), the same launch
on the same bytes would leave them as they are again, and running it is skipped: what the
script reads afterwards is what the interpreter would have written.

`Repeats.seen(...)` answers before a launch, `Repeats.before(...)` keeps a copy of the memory
it will run on and `Repeats.note(...)` learns after it. Memory is compared byte for byte
(`memcmp` of each storage against the copy, memory speed, no hashing); a copy is taken only
from a launch's second occurrence on (a launch seen once cannot have been a fixed point), never
for a launch whose memory is larger than the copies may be in all (it is interpreted every
time rather than doubling what the script holds), and only the last few fixed points are kept. Launches with arguments it cannot identify (objects
other than tensors, numpy arrays and plain scalars) are always interpreted.
"""

from __future__ import annotations

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


_KEEP = 8  # fixed points remembered (the latest ones)
_KEEP_BYTES = 1 << 30  # and at most this much memory copied for them


def _storages(args: Sequence[Any], kwargs: Mapping[str, Any]) -> list[Any]:
    """Each distinct storage the launch's tensors live in, as a flat uint8 tensor over it."""
    import torch

    seen: set[int] = set()
    out = []
    for value in [*args, *kwargs.values()]:
        tensor = _tensor(value)
        if tensor is None:
            continue
        storage = tensor.untyped_storage()
        if storage.data_ptr() in seen:
            continue
        seen.add(storage.data_ptr())
        out.append(torch.empty(0, dtype=torch.uint8, device=tensor.device).set_(storage))
    return out


def _memcmp() -> Any:
    import ctypes

    compare = ctypes.CDLL(None).memcmp
    compare.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
    compare.restype = ctypes.c_int
    return compare


class Snapshot:
    """A copy of the bytes of every storage a launch's tensors live in."""

    def __init__(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
        self.copies = [(raw.data_ptr(), raw.cpu().clone()) for raw in _storages(args, kwargs)]
        self.nbytes = sum(int(c.numel()) for _, c in self.copies)

    def matches(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> bool:
        """Whether the launch's memory now holds exactly these bytes."""
        now = _storages(args, kwargs)
        if [r.data_ptr() for r in now] != [p for p, _ in self.copies]:
            return False
        compare = _memcmp()
        for raw, (_, copy) in zip(now, self.copies, strict=True):
            if raw.numel() != copy.numel():
                return False
            if raw.device.type != "cpu":
                if not bool(raw.cpu().equal(copy)):
                    return False
            elif raw.numel() and compare(raw.data_ptr(), copy.data_ptr(), raw.numel()):
                return False
        return True


class Repeats:
    """The launches seen to leave their memory unchanged, with the bytes they left."""

    def __init__(self) -> None:
        self._fixed: dict[Any, Snapshot] = {}
        self._met: set[Any] = set()

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

    def seen(self, key: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> bool:
        """Whether this launch, on the memory it would run on now, is known to change nothing."""
        fixed = self._fixed.get(key) if key is not None else None
        return fixed is not None and fixed.matches(args, kwargs)

    def before(self, key: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Snapshot | None:
        """A copy of the memory the launch runs on, from its second occurrence on (else None)."""
        if key is None:
            return None
        if key not in self._met:
            self._met.add(key)
            return None
        if sum(int(raw.numel()) for raw in _storages(args, kwargs)) > _KEEP_BYTES:
            return None  # a copy would double the launch's memory: always interpreted
        return Snapshot(args, kwargs)

    def note(self, key: Any, before: Snapshot | None, args: Sequence[Any],
             kwargs: Mapping[str, Any]) -> None:  # fmt: skip
        """Learn from a launch that ran: a fixed point when its memory is as it was."""
        if key is None or before is None or not before.matches(args, kwargs):
            return
        self._fixed.pop(key, None)
        self._fixed[key] = before
        while len(self._fixed) > _KEEP or sum(s.nbytes for s in self._fixed.values()) > _KEEP_BYTES:
            self._fixed.pop(next(iter(self._fixed)))
