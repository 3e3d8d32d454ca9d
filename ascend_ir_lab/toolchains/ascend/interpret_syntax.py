"""`not`, `and` and `or` on tensors in interpreted kernels, as Triton compiles them.

Triton's compiler reads a kernel's `not x` as `x.__not__()` and `a and b` / `a or b` as
`a.logical_and(b)` / `a.logical_or(b)` where a side is a tensor (triton-ascend's `not_` of an
integer tensor is its bitwise invert, as `torch.bitwise_not` computes it). Triton 3.2's
interpreter runs the kernel as Python, where `not x` of a tensor is `not bool(x)`: one
Python bool for the whole block, stored as 0 or 1 everywhere, silently (plain
`TRITON_INTERPRET=1` computes the same wrong values). For the block, the interpreter's
rewrite of a kernel's source also turns these operators into calls that do what the
compiler does on tensors, and what Python does on anything else (short-circuit included).

The same rewrite unpacks as the compiler assigns: it pairs a tuple assignment's names with
its values as `zip` does, so `x, y = a, b if c else d, e` (three values: the conditional
binds tighter than the commas) sets x and y and drops `e`, where Python raises "too many
values to unpack" (triton-ascend's own tutorial 13 has that line). A single name given
several values takes the first, as `zip` pairs it: `ret = tl.broadcast(x, y)` (a pair of
tensors) is the broadcast `x`, which a store of `ret` then stores (Python would keep the pair,
and the store fail).

A number given new axes (`(i * 4 + j)[None, None]`, of loop counters) or asked for a
tensor's method (`k.to(tl.int64)`) is a tensor of one element, as in a compiled kernel,
where a loop's counter is an i32 value; the interpreter keeps counters Python ints, which
Python cannot subscript and which have no such methods.
"""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["tensor_operators"]

_HELPERS = {
    "not": "_ascend_ir_lab_not",
    "and": "_ascend_ir_lab_and",
    "or": "_ascend_ir_lab_or",
    "unpack": "_ascend_ir_lab_unpack",
    "first": "_ascend_ir_lab_first",
    "axes": "_ascend_ir_lab_axes",
    "tensor": "_ascend_ir_lab_tensor",
}
# Methods of a tensor that a kernel calls on a loop's counter, which a Python number lacks.
_TENSOR_METHODS = frozenset({"to", "broadcast_to", "reshape", "expand_dims", "view", "cast"})


def _is_tensor(value: Any) -> bool:
    import triton.language as tl

    return isinstance(value, tl.core.tensor)


def _not(value: Any) -> Any:
    return value.__not__() if _is_tensor(value) else not value


def _and(left: Any, right: Callable[[], Any]) -> Any:
    if not _is_tensor(left) and not left:
        return left  # Python's short-circuit: the right side is not evaluated
    value = right()
    if _is_tensor(left):
        return left.logical_and(value)
    return value.logical_and(left) if _is_tensor(value) else value


def _or(left: Any, right: Callable[[], Any]) -> Any:
    if not _is_tensor(left) and left:
        return left
    value = right()
    if _is_tensor(left):
        return left.logical_or(value)
    return value.logical_or(left) if _is_tensor(value) else value


def _unpack(values: Any, count: int) -> Any:
    """More values than names, cut to the names, as the compiler's `zip` pairs them."""
    if isinstance(values, (tuple, list)) and len(values) > count:
        return values[:count]
    return values


def _first(values: Any) -> Any:
    """The value a single name is given, as the compiler's `zip` pairs it with `values`."""
    if isinstance(values, (tuple, list)) and values:
        return values[0]
    return values


def _tensor(value: Any) -> Any:
    """A number as the one-element tensor a compiled kernel holds (an i32 of an int, as a
    loop's counter is); anything else as it is."""
    if isinstance(value, (int, float)):
        from triton.language import semantic
        from triton.runtime import interpreter

        return semantic.to_tensor(value, interpreter.interpreter_builder)
    return value


def _axes(value: Any, index: Any) -> Any:
    """`value[index]` (`index` of new axes and whole slices), a number first a tensor."""
    return _tensor(value)[index]


def _new_axes(index: ast.expr) -> bool:
    """Whether a subscript's index only adds axes (`None`) and takes whole ones (`:`)."""
    items = index.elts if isinstance(index, ast.Tuple) else [index]

    def bare(e: ast.expr) -> bool:
        return isinstance(e, ast.Slice) and e.lower is None and e.upper is None and e.step is None

    none = [isinstance(e, ast.Constant) and e.value is None for e in items]
    return any(none) and all(n or bare(e) for n, e in zip(none, items, strict=True))


def _helper(name: str) -> ast.expr:
    """`triton.language.core.<helper>`: a name the interpreter's rewritten code can reach."""
    node: ast.expr = ast.Name(id="triton", ctx=ast.Load())
    for attr in ("language", "core", _HELPERS[name]):
        node = ast.Attribute(value=node, attr=attr, ctx=ast.Load())
    return node


class _Rewrites(ast.NodeTransformer):
    """The rewrites of expressions, before the interpreter's own transformer in the MRO."""

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load) or not _new_axes(node.slice):
            return node
        return ast.copy_location(
            ast.Call(func=_helper("axes"), args=[node.value, node.slice], keywords=[]), node
        )

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load) and node.attr in _TENSOR_METHODS:
            node.value = ast.Call(func=_helper("tensor"), args=[node.value], keywords=[])
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.op, ast.Not):
            return node
        return ast.copy_location(
            ast.Call(func=_helper("not"), args=[node.operand], keywords=[]), node
        )

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        name = "and" if isinstance(node.op, ast.And) else "or"
        result = node.values[0]
        for right in node.values[1:]:  # `a and b and c` as `(a and b) and c`
            later = ast.Lambda(
                args=ast.arguments(
                    posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]
                ),
                body=right,
            )
            result = ast.Call(func=_helper(name), args=[result, later], keywords=[])
        return ast.copy_location(result, node)


def _transformer(base: type) -> Any:
    class Operators(_Rewrites, base):  # type: ignore[misc]  # the interpreter's own class
        def visit_Assign(self, node: ast.Assign) -> ast.AST:
            node.value = self.visit(node.value)  # the interpreter's own visit skips it
            (target,) = node.targets[:1] or (None,)
            if (
                len(node.targets) == 1
                and isinstance(target, (ast.Tuple, ast.List))
                and not any(isinstance(e, ast.Starred) for e in target.elts)
            ):
                count = ast.Constant(value=len(target.elts))
                node.value = ast.Call(func=_helper("unpack"), args=[node.value, count], keywords=[])
            elif len(node.targets) == 1 and isinstance(target, ast.Name):
                node.value = ast.Call(func=_helper("first"), args=[node.value], keywords=[])
            return super().visit_Assign(node)  # type: ignore[no-any-return]

    return Operators()


@contextlib.contextmanager
def tensor_operators() -> Iterator[None]:
    """For the block, interpreted kernels compute `not`/`and`/`or` of tensors as compiled.
    The helpers are set on `triton.language.core`, whose names the caller restores."""
    import triton.language as tl
    from triton.runtime import interpreter

    rewriter = getattr(interpreter, "FunctionRewriter", None)
    if rewriter is None:  # another interpreter: left as it is
        yield
        return
    before = rewriter.ast_transformer
    for name, helper in zip(
        _HELPERS.values(), (_not, _and, _or, _unpack, _first, _axes, _tensor), strict=True
    ):
        setattr(tl.core, name, helper)
    rewriter.ast_transformer = _transformer(type(before))
    try:
        yield
    finally:
        rewriter.ast_transformer = before
