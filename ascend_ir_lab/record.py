"""Value classes of the read path without `dataclasses`.

`dataclasses` imports `inspect` (and with it `ast`, `dis`, `tokenize`): about 9 ms of every
command's start, more than reading a small log. The nouns every command reads through (Dump,
Message, Segment, Header...) are written out instead: their own `__slots__` and `__init__`,
and from `Record` the comparison, representation and copy a dataclass would give them.
`__slots__` lists the fields in order: `parallel.flat` reads them back by it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from typing import Any, TypeVar

    R = TypeVar("R", bound="Record")


class Record:
    """Equal where of one class and equal field by field (the fields: `__slots__`), shown
    as `Name(field=value, ...)`. Mutable, so unhashable; `Frozen` for values kept as keys."""

    __slots__: tuple[str, ...] = ()
    __hash__ = None  # type: ignore[assignment]

    def values(self) -> tuple[Any, ...]:
        """The fields' values, in order."""
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        return self.values() == other.values()

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"


class Frozen(Record):
    """A Record whose fields are never set after `__init__` (they are declared `Final`, which
    mypy checks): hashable by its values."""

    __slots__ = ()

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self.values())


def replace(record: R, **changes: Any) -> R:
    """A copy of `record` with the fields `changes` names set to their values."""
    cls = type(record)
    unknown = set(changes) - set(cls.__slots__)
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {sorted(unknown)[0]!r}")
    copy = cls.__new__(cls)
    for name in cls.__slots__:
        object.__setattr__(copy, name, changes[name] if name in changes else getattr(record, name))
    return copy
