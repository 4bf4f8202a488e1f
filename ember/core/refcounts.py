"""What a reference count proves, shared by temporary elision (elision.py) and by the
gradient stealing of autograd/accumulate.py's accumulate_grad.

EXACT: on CPython 3.11-3.13 with the GIL every owner of an object (a variable, a
container slot, a C structure, a slot of the interpreter's value stack, a parameter of
the running function) holds one counted reference, so `sys.getrefcount(x) == n` with
n known owners proves there is no other. Python 3.14 lets the value stack and frames
borrow references without counting them and free-threaded builds split and defer
counts: there a count proves nothing and no code may rely on one.

binary_operands(frame): the ids of the two operands of the BINARY_OP that `frame` is
executing, read from its value stack, which is how elision proves that the third
reference to a temporary is the interpreter's stack slot and not, say, a NumPy object
array whose loop calls the operator with references the array owns.
"""
from __future__ import annotations

import ctypes
import dis
import functools
import operator
import sys
import sysconfig

EXACT = (3, 11) <= sys.version_info < (3, 14) and not sysconfig.get_config_var("Py_GIL_DISABLED")

_BINARY_OP = dis.opmap.get("BINARY_OP")
_JUMPS = frozenset(dis.hasjrel + dis.hasjabs)
_ENDS = frozenset(dis.opmap[n] for n in (
    "RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE", "JUMP_FORWARD",
    "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT") if n in dis.opmap)
# the first send() resumes a generator with the value sent on the stack (3.13 counts it)
_RETURN_GENERATOR = dis.opmap.get("RETURN_GENERATOR")
# 64-bit CPython 3.11-3.13 (Include/internal/pycore_frame.h): PyFrameObject.f_frame follows
# PyObject_HEAD and f_back; in the _PyInterpreterFrame it points to, the code object is
# the 5th pointer (3.11) or the 1st (3.12, 3.13), and localsplus (the fast locals, cells
# and free variables, then the value stack) follows 8 pointers, an int and 3-4 bytes.
_F_FRAME = object.__basicsize__ + 8
_CODE = 32 if sys.version_info < (3, 12) else 0
_LOCALSPLUS = 72
_word = ctypes.c_size_t.from_address
_SLOTS: dict = {}           # id(code) -> (code, {BINARY_OP offset: localsplus index of lhs})


def binary_operands(frame) -> tuple[int, int] | None:
    """(id(lhs), id(rhs)) of the BINARY_OP `frame` is executing, or None when it is not
    executing one or its stack cannot be read."""
    if not STACK_READABLE:
        return None
    code = frame.f_code
    entry = _SLOTS.get(id(code))
    if entry is None:
        if len(_SLOTS) >= 512:
            _SLOTS.clear()
        entry = _SLOTS[id(code)] = (code, _binary_op_slots(code))   # keeps the id taken
    slot = entry[1].get(frame.f_lasti)
    if slot is None:
        return None
    f = _word(id(frame) + _F_FRAME).value
    if _word(f + _CODE).value != id(code):      # not the layout this module knows
        return None
    lhs = f + _LOCALSPLUS + 8 * slot
    return _word(lhs).value, _word(lhs + 8).value


def _binary_op_slots(code) -> dict:
    """{offset of each BINARY_OP: index in localsplus of its left operand}. The stack
    depth before an instruction is fixed by the compiler; it is found here as the
    compiler finds it, following jumps, fall-throughs and exception handlers with
    dis.stack_effect. {} when the flow does not add up (nothing is proven then)."""
    instrs = list(dis.get_instructions(code))
    at = {ins.offset: k for k, ins in enumerate(instrs)}
    depths = [None] * len(instrs)
    todo = [(0, 0)] + [(at[e.target], e.depth + e.lasti + 1)
                       for e in dis._parse_exception_table(code)]
    try:
        while todo:
            k, d = todo.pop()
            while k < len(instrs) and depths[k] is None:
                if not 0 <= d <= code.co_stacksize:
                    return {}
                depths[k] = d
                ins = instrs[k]
                if ins.opcode in _JUMPS:
                    todo.append((at[ins.argval], d + dis.stack_effect(ins.opcode, ins.arg,
                                                                        jump=True)))
                if ins.opcode in _ENDS:
                    break
                d += 1 if ins.opcode == _RETURN_GENERATOR else \
                    dis.stack_effect(ins.opcode, ins.arg, jump=False)
                k += 1
            if k < len(instrs) and depths[k] != d:
                return {}
    except (KeyError, ValueError):      # a jump into a cache entry, an unknown opcode
        return {}
    nlocalsplus = len(set(code.co_varnames + code.co_cellvars + code.co_freevars))
    return {ins.offset: nlocalsplus + d - 2 for ins, d in zip(instrs, depths)
            if ins.opcode == _BINARY_OP and d is not None and d >= 2}


class _Probe:
    def __add__(self, other):
        return binary_operands(sys._getframe(1))


def _self_test() -> bool:
    """binary_operands sees the operands of `a + b` and, when `x + w` calls a.__add__
    through C (a partial holding `a`), those of `x + w`: the frame layout and the
    stack depths above hold on this interpreter."""
    a, b, x = _Probe(), _Probe(), 1.0
    w = type("W", (), {"__radd__": staticmethod(functools.partial(operator.add, a))})()
    return a + b == (id(a), id(b)) and x + w == (id(x), id(w))


# whether binary_operands can read value stacks here (else it always answers None)
STACK_READABLE = EXACT and ctypes.sizeof(ctypes.c_void_p) == 8 and _BINARY_OP is not None
STACK_READABLE = STACK_READABLE and _self_test()
