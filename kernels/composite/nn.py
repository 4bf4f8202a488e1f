"""Decompositions of the nn family (issue 4) into ember ops: autograd (and double
backward) comes from the ops they call.

    >>> ember.einsum("ij,jk->ik", ember.ones(2, 3), ember.ones(3, 4)).shape
    ember.Size([2, 4])
"""
from __future__ import annotations

import ember
from ember.core import dtype as D
from ember.kernels.common._errors import not_implemented_for


# --------------------------------------------------------------------------- linear algebra
def _check_outer(self, vec2):
    if self.dim() != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {self.dim()}-D")
    if vec2.dim() != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2.dim()}-D")


def outer(self, vec2):
    """`self[:, None] * vec2` (type promotion like mul)."""
    _check_outer(self, vec2)
    return ember.mul(self.reshape(self._shape[0], 1), vec2)


def outer_out(self, vec2, out):
    _check_outer(self, vec2)
    return ember.mul(self.reshape(self._shape[0], 1), vec2, out=out)


_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _einsum_err(msg):
    return RuntimeError(f"einsum(): {msg}")


def _parse_einsum(equation, operands):
    """Per operand a list of labels (ints; ellipsis dims get negative labels), the output
    labels, and the size of each label."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(operands):
        raise _einsum_err("fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise _einsum_err("more operands were provided than specified in the equation")
    ell_ndim = 0
    op_labels = []
    for i, (term, op) in enumerate(zip(terms, operands)):
        head, ell, tail = term.partition("...")
        for c in head + tail:
            if c not in _LETTERS:
                raise _einsum_err(f"invalid subscript given at index {lhs.find(c)} in the "
                                  f"equation string, subscripts must be in [a-zA-Z]")
        n = len(head) + len(tail)
        if ell:
            if op.dim() < n:
                raise _einsum_err(f"the number of subscripts in the equation ({n}) is more "
                                  f"than the number of dimensions ({op.dim()}) for operand {i}")
            k = op.dim() - n
            ell_ndim = max(ell_ndim, k)
            labels = [_LETTERS.index(c) for c in head] + [-k + j for j in range(k)] + \
                [_LETTERS.index(c) for c in tail]
        else:
            if n != op.dim():
                raise _einsum_err(f"the number of subscripts in the equation ({n}) does not "
                                  f"match the number of dimensions ({op.dim()}) for operand {i} "
                                  "and no ellipsis was given")
            labels = [_LETTERS.index(c) for c in term]
        op_labels.append(labels)
    ell_labels = [-ell_ndim + j for j in range(ell_ndim)]
    counts = {}
    for labels in op_labels:
        for lab in labels:
            counts[lab] = counts.get(lab, 0) + 1
    if arrow:
        head, ell, tail = rhs.partition("...")
        out = []
        for c in head + tail:
            if c not in _LETTERS:
                raise _einsum_err(f"invalid subscript given at index {len(lhs) + 2 + rhs.find(c)} "
                                  "in the equation string, subscripts must be in [a-zA-Z]")
            lab = _LETTERS.index(c)
            if lab in out:
                raise _einsum_err(f"output subscript {c} appears more than once in the output")
            if lab not in counts:
                raise _einsum_err(f"output subscript {c} does not appear in the equation for "
                                  "any input operand")
            out.append(lab)
        out = [_LETTERS.index(c) for c in head] + (ell_labels if ell else []) + \
            [_LETTERS.index(c) for c in tail]
    else:
        out = ell_labels + sorted(lab for lab, n in counts.items() if n == 1 and lab >= 0)
    return op_labels, out


def einsum(equation, tensors, path):
    """torch.einsum: each operand's repeated labels become diagonals, its dims are permuted
    to (output labels, contracted labels) with size-1 dims for labels it lacks, and the
    operands are multiplied left to right, summing each contracted label after the last
    operand that has it."""
    if len(tensors) == 0:
        raise _einsum_err("must provide at least one operand")
    op_labels, out = _parse_einsum(equation, tensors)
    contracted = sorted({lab for labels in op_labels for lab in labels} - set(out))
    order = out + contracted
    pos = {lab: i for i, lab in enumerate(order)}
    sizes = {}
    ops = []
    for i, (t, labels) in enumerate(zip(tensors, op_labels)):
        labels = list(labels)
        # repeated labels: take the diagonal (it moves to the end)
        j = 0
        while j < len(labels):
            lab = labels[j]
            k = labels.index(lab, j + 1) if labels.count(lab) > 1 else -1
            if k < 0:
                j += 1
                continue
            if t._shape[j] != t._shape[k]:
                raise _einsum_err(f"subscript {_LETTERS[lab]} is repeated for operand {i} but "
                                  f"the sizes don't match, {t._shape[j]} != {t._shape[k]}")
            t = t.diagonal(0, j, k)
            labels = [x for m, x in enumerate(labels) if m not in (j, k)] + [lab]
        for lab, n in zip(labels, t._shape):
            seen = sizes.get(lab)
            if seen is not None and n != seen and n != 1 and seen != 1:
                name = _LETTERS[lab] if lab >= 0 else "..."
                raise _einsum_err(f"subscript {name} has size {n} for operand {i} which does "
                                  f"not broadcast with previously seen size {seen}")
            if seen is None or seen == 1:
                sizes[lab] = n
        perm = sorted(range(len(labels)), key=lambda m: pos[labels[m]])
        t = t.permute(perm)
        present = sorted(labels, key=lambda lab: pos[lab])
        shape = []
        it = iter(t._shape)
        for lab in order:
            shape.append(next(it) if lab in present else 1)
        ops.append(t.reshape(shape) if tuple(shape) != t._shape else t)
    last, owners = {}, {}
    for i, labels in enumerate(op_labels):
        for lab in set(labels):
            last[lab] = i
            owners[lab] = owners.get(lab, 0) + 1
    n_out = len(out)
    if len(ops) == 1:
        dims = [pos[lab] for lab in contracted]
        return ops[0].sum(dims) if dims else ops[0]
    dt = ops[0]._dtype
    for t in ops[1:]:
        if t._dtype is not dt:
            raise RuntimeError(f"expected scalar type {dt.scalar_name} but found "
                               f"{t._dtype.scalar_name}")
    for i, labels in enumerate(op_labels):   # labels only this operand has: sum them first
        dims = [pos[lab] for lab in contracted if owners[lab] == 1 and lab in labels]
        if dims:
            ops[i] = ops[i].sum(dims, keepdim=True)
    result = ops[0]
    dt = result._dtype
    summed = False
    for i, t in enumerate(ops[1:], 1):
        result = result * t
        dims = [pos[lab] for lab in contracted if last[lab] == i and owners[lab] > 1]
        if dims:
            if dt is D.bool_:
                raise not_implemented_for("bmm", dt)
            result = result.sum(dims, keepdim=True, dtype=dt)
            summed = True
    if contracted:
        result = result.reshape(result._shape[:n_out])
    if summed:
        result = result.contiguous()
    return result


# --------------------------------------------------------------------------- softmax
def softmax_int(self, dim, dtype):
    """`_softmax` of the input converted to `dtype` first (torch's CPU path)."""
    x = self if dtype is None else self.to(dtype)
    return ember._softmax(x, dim, False)


def log_softmax_int(self, dim, dtype):
    x = self if dtype is None else self.to(dtype)
    return ember._log_softmax(x, dim, False)
