"""Decompositions of the nn family into ember ops: autograd (and double
backward) comes from the ops they call.

    >>> ember.einsum("ij,jk->ik", ember.ones(2, 3), ember.ones(3, 4)).shape
    ember.Size([2, 4])
"""
from __future__ import annotations

import math

import ember
from ember._generated import ops as _ops
from ember.core import dtype as D
from ember.dispatch.argcheck import FITS as _FITS
from ember.kernels.common._errors import not_implemented_for
from ember.kernels.meta.linalg import CPP_NAMES


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
        dims = [pos[lab] for lab in contracted if last[lab] == i and owners[lab] > 1]
        if dims:
            if dt is D.bool_:
                raise not_implemented_for("bmm", dt)
            result = _sumproduct_pair(result, t, dims, dt)
            summed = True
        else:
            result = result * t
    if contracted:
        result = result.reshape(result._shape[:n_out])
    if summed:
        result = result.contiguous()
    return result


def _prod(sizes):
    n = 1
    for s in sizes:
        n *= s
    return n


def _sumproduct_pair(left, right, sum_dims, dt):
    """(left * right).sum(sum_dims, keepdim=True) for operands of the same rank, as one bmm
    (torch's sumproduct_pair): dims both have are the batch, dims one has are its rows or
    columns, the summed dims the inner dimension."""
    nd = left.dim()
    for d in sum_dims:   # a summed dim only one side has: sum that side first
        if left._shape[d] == 1 and right._shape[d] != 1:
            right = right.sum([d], keepdim=True, dtype=dt)
        elif right._shape[d] == 1 and left._shape[d] != 1:
            left = left.sum([d], keepdim=True, dtype=dt)
    sums = [d for d in sum_dims if left._shape[d] != 1]
    lro, lo, ro, ones = [], [], [], []
    for d in range(nd):
        if d in sums:
            continue
        a, b = left._shape[d], right._shape[d]
        (lro if a != 1 and b != 1 else lo if a != 1 else ro if b != 1 else ones).append(d)
    size = [left._shape[d] if right._shape[d] == 1 else right._shape[d] for d in range(nd)]
    b, n, m, k = (_prod(size[d] for d in g) for g in (lro, lo, ro, sums))
    left3 = left.permute(lro + lo + sums + ro + ones).reshape(b, n, k)
    right3 = right.permute(lro + sums + ro + lo + ones).reshape(b, k, m)
    out = ember.bmm(left3, right3)
    order = lro + lo + ro + sums + ones
    out = out.reshape([size[d] for d in lro + lo + ro] + [1] * (len(sums) + len(ones)))
    inverse = [0] * nd
    for i, d in enumerate(order):
        inverse[d] = i
    return out.permute(inverse)


# --------------------------------------------------------------------------- softmax
def softmax_int(self, dim, dtype):
    """`_softmax` of the input converted to `dtype` first (torch's CPU path)."""
    x = self if dtype is None else self.to(dtype)
    return ember._softmax(x, dim, False)


def log_softmax_int(self, dim, dtype):
    x = self if dtype is None else self.to(dtype)
    return ember._log_softmax(x, dim, False)


# --------------------------------------------------------------------------- losses
def _no_requires_grad(fn, **tensors):
    """torch's check_no_requires_grad: its explicit-autograd op refuses these inputs
    requiring grad (in grad mode)."""
    if not ember.is_grad_enabled():
        return
    for name, t in tensors.items():
        if t is not None and t.requires_grad:
            raise RuntimeError(f"The function '{fn}' is not differentiable with respect to "
                               f"argument '{name}'. This input cannot have requires_grad True.")


def _reduce_loss(loss, reduction):
    """torch's apply_loss_reduction: 1 mean, 2 sum, anything else none."""
    if reduction == 1:
        return loss.mean()
    if reduction == 2:
        return loss.sum()
    return loss


def _abs(x):
    """|x| from clamps (gradient 0 at 0, like torch's abs)."""
    return x.clamp(min=0) - x.clamp(max=0)


def mse_loss(self, target, reduction):
    """(self - target)^2, reduced; floating inputs only (torch's "mse_cpu")."""
    dt = D.result_type(self, target)
    if dt.category != D.FLOAT:
        raise not_implemented_for("mse_cpu", dt)
    if reduction not in (0, 1, 2):
        raise RuntimeError("reduction == Reduction::Mean || reduction == Reduction::Sum "
                           "INTERNAL ASSERT FAILED: unknown reduction")
    d = self - target
    return _reduce_loss(d * d, reduction)


def l1_loss(self, target, reduction):
    """|self - target|, reduced (torch's composite)."""
    return _reduce_loss(_abs(self - target), reduction)


def _log_sigmoid(x):
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)) (torch's kernel), in float32 for
    half types."""
    if x._dtype.category != D.FLOAT:
        raise not_implemented_for("log_sigmoid_cpu", x._dtype)
    half = x._dtype in (D.float16, D.bfloat16)
    y = x.to(D.float32) if half else x
    m = y.clamp(max=0)
    out = m - (m * 2 - y).exp().log1p()
    return out.to(x._dtype) if half else out


def binary_cross_entropy_with_logits(self, target, weight, pos_weight, reduction):
    """torch's formula, in-place steps included (they give its dtype and shape rules):
    (1 - t) * x - log_sigmoid(x) * (1 + (pos_weight - 1) * t), times weight, reduced."""
    _no_requires_grad("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    lsi = _log_sigmoid(self)
    if pos_weight is not None:
        log_weight = (pos_weight - 1).mul(target).add_(1)
        lsi = lsi.mul_(log_weight)
    loss = (1 - target).mul_(self).sub_(lsi)
    if weight is not None:
        loss = loss.mul_(weight)
    return _reduce_loss(loss, reduction)


def nll_loss(self, target, weight, reduction, ignore_index):
    return _ops._entry_nll_loss_forward(self, target, weight, reduction, ignore_index)[0]


def nll_loss_nd(self, target, weight, reduction, ignore_index):
    """nll_loss over (N, C, d1, ...) inputs: the class dim moved last and flattened into
    rows of one nll_loss (torch's checks and messages)."""
    if self.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {self.dim()})")
    if self.dim() != 1 and self._shape[0] != target._shape[0]:
        raise ValueError(f"Expected input batch_size ({self._shape[0]}) to match target "
                         f"batch_size ({target._shape[0]}).")
    if self.dim() <= 2:
        return nll_loss(self, target, weight, reduction, ignore_index)
    if self.dim() == 4:
        return nll_loss2d(self, target, weight, reduction, ignore_index)
    n, c = self._shape[:2]
    out_size = (n,) + tuple(self._shape[2:])
    if tuple(target._shape[1:]) != tuple(self._shape[2:]):
        raise RuntimeError(f"Expected target size {list(out_size)}, got {list(target._shape)}")
    inp, tgt = self.contiguous(), target.contiguous()
    inp = inp.view(n, c, 1, -1) if inp.numel() else inp.view(n, c, 0, 0)
    tgt = tgt.view(n, 1, -1) if tgt.numel() else tgt.view(n, 0, 0)
    out = nll_loss2d(inp, tgt, weight, reduction, ignore_index)
    return out if reduction != 0 else out.view(out_size)


def nll_loss2d(self, target, weight, reduction, ignore_index):
    return ember.nll_loss2d_forward(self, target, weight, reduction, ignore_index)[0]


def _class_weight(weight, ndim, class_dim):
    if ndim <= 1:
        return weight
    shape = [1] * ndim
    shape[class_dim] = weight._shape[0]
    return weight.view(shape)


def _ce_prob_target(self, target, weight, reduction, label_smoothing):
    class_dim = 0 if self.dim() == 1 else 1
    n_classes = self._shape[class_dim]
    if weight is not None and not (weight.dim() == 1 and weight.numel() == n_classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all "
                           f"{n_classes} classes or no classes but got weight tensor of shape: "
                           f"{list(weight._shape)}")
    inp = ember._log_softmax(self, class_dim, False)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError("label_smoothing must be between 0.0 and 1.0. Got: "
                               f"{label_smoothing}")
        target = target * (1 - label_smoothing) + (label_smoothing / n_classes)
    prod = inp * target
    if weight is not None:
        prod = prod * _class_weight(weight, inp.dim(), 1)
    if reduction == 1:
        if inp.numel() == 0:
            return prod.sum().neg() * float("nan")
        return prod.sum().neg() / (inp.numel() // n_classes)
    if reduction == 2:
        return prod.sum().neg()
    if reduction == 0:
        return prod.sum(class_dim).neg()
    raise RuntimeError(f"Invalid reduction type encountered in cross_entropy: {reduction}")


def _ce_label_smoothing(self, target, weight, reduction, ignore_index, label_smoothing):
    class_dim = 0 if self.dim() == 1 else 1
    inp = ember._log_softmax(self, class_dim, False)
    nll = nll_loss_nd(inp, target, weight, reduction, ignore_index)
    n_classes = inp._shape[class_dim]
    ignore_mask = target == ignore_index
    if weight is not None:
        smooth = (inp * _class_weight(weight, inp.dim(), class_dim)).sum(class_dim).neg()
    else:
        smooth = inp.sum(class_dim).neg()
    smooth = smooth.masked_fill(ignore_mask, 0.0)
    if reduction == 1:
        if weight is not None:
            picked = weight[target.masked_fill(ignore_mask, 0).reshape(-1)]
            ret = smooth.sum() / picked.masked_fill(ignore_mask.reshape(-1), 0).sum()
        else:
            ret = smooth.sum() / (ignore_mask == 0).sum()
    elif reduction == 2:
        ret = smooth.sum()
    elif reduction == 0:
        ret = smooth
    else:
        raise RuntimeError(f"Invalid reduction type encountered in cross_entropy: {reduction}")
    return nll * (1 - label_smoothing) + ret * (label_smoothing / n_classes)


def cross_entropy_loss(self, target, weight, reduction, ignore_index, label_smoothing):
    """log_softmax over the class dim, then nll_loss (class-index targets), or the
    -sum(target * log_softmax) of class-probability targets (same shape as the input)."""
    if tuple(self._shape) == tuple(target._shape):
        if target._dtype.category != D.FLOAT:
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {target._dtype.scalar_name}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _ce_prob_target(self, target, weight, reduction, label_smoothing)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError("label_smoothing must be between 0.0 and 1.0. Got: "
                               f"{label_smoothing}")
        return _ce_label_smoothing(self, target, weight, reduction, ignore_index,
                                   label_smoothing)
    class_dim = 0 if len(self._shape) == 1 else 1
    return nll_loss_nd(_ops._entry__log_softmax(self, class_dim, False), target, weight,
                       reduction, ignore_index)


# --------------------------------------------------------------------------- normalisation
def layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable):
    return _ops._entry_native_layer_norm(input, normalized_shape, weight, bias, eps)[0]


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """native_batch_norm's output, after torch's argument checks."""
    for pos, name, v in ((7, "momentum", momentum), (8, "eps", eps)):
        if not _FITS["float"](v):  # torch's binding refuses momentum=None (nn.BatchNorm's)
            raise TypeError(f"batch_norm(): argument '{name}' (position {pos}) must be float, "
                            f"not {type(v).__name__}")
    if input.dim() >= 2:
        c = input._shape[1]
        for name, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean),
                        ("running_var", running_var)):
            if t is not None and t.numel() != c:
                raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    if not training:
        for name, t in (("running_mean", running_mean), ("running_var", running_var)):
            if t is None:
                raise RuntimeError(f"{name} must be defined in evaluation mode")
    return ember.native_batch_norm(input, weight, bias, running_mean, running_var, training,
                                   momentum, eps)[0]


# --------------------------------------------------------------------------- attention
def _safe_softmax(x, dim):
    """softmax, with 0 (not NaN) in rows that are all -inf (torch's _safe_softmax); the
    masked rows are replaced before the softmax, so no NaN reaches the gradients either."""
    dead = x.amax([dim], keepdim=True) == float("-inf")
    out = ember._softmax(ember.where(dead, 0.0, x), dim, False)
    return ember.where(dead, 0.0, out)


def scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, scale,
                                 enable_gqa):
    """softmax(q k^T * scale + mask) v, torch's math path: q and k each scaled by
    sqrt(scale); a bool mask (or is_causal's lower triangle) keeps the True positions;
    rows with nothing to attend to give 0; dropout when dropout_p > 0."""
    if query._dtype is not key._dtype or query._dtype is not value._dtype:
        raise RuntimeError("Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {CPP_NAMES[query._dtype]} key.dtype: "
                           f"{CPP_NAMES[key._dtype]} and value.dtype: {CPP_NAMES[value._dtype]} "
                           "instead.")
    if attn_mask is not None and attn_mask._dtype not in (D.bool_, D.float32, query._dtype):
        raise RuntimeError("Expected attn_mask dtype to be bool or float or to match query dtype,"
                           f" but got attn_mask.dtype: {CPP_NAMES[attn_mask._dtype]} and  "
                           f"query.dtype: {CPP_NAMES[query._dtype]} instead.")
    if query._dtype.category != D.FLOAT:
        raise RuntimeError(f"expected scalar type Float but found {query._dtype.scalar_name}")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    if _flash_attention_applies(query, key, value, attn_mask, dropout_p):
        return _ops._entry__scaled_dot_product_flash_attention_for_cpu(
            query, key, value, 0.0, is_causal, None, scale)[0]
    low = query._dtype if query._dtype in (D.float16, D.bfloat16) and \
        query._device.type == "cpu" else None
    if low is not None:     # torch computes half types in float32 on the CPU, rounding once
        query, key, value = (t.to(D.float32) for t in (query, key, value))
    e = query._shape[-1]
    s = (1.0 / math.sqrt(e) if e else float("inf")) if scale is None else scale
    root = math.sqrt(abs(s))
    q = ember.mul(query, -root if s < 0 else root)
    if enable_gqa and query.dim() >= 3 and key.dim() >= 3 and \
            query._shape[-3] != key._shape[-3]:
        key, value = _repeat_heads(key, query._shape[-3]), _repeat_heads(value, query._shape[-3])
    attn = ember.matmul(q, ember.mul(key.transpose(-2, -1), root))
    if is_causal:
        n, m = query._shape[-2], key._shape[-2]
        rows = ember.arange(n, device=query.device).unsqueeze(1)
        attn_mask = rows >= ember.arange(m, device=query.device).unsqueeze(0)
    if attn_mask is not None:
        if attn_mask._dtype is D.bool_:
            attn = attn.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            attn = attn + attn_mask
    if is_causal and key._shape[-2]:    # every row keeps its first column: none is all -inf
        attn = ember._softmax(attn, -1, False)
    else:
        attn = _safe_softmax(attn, -1)
    if dropout_p > 0.0:
        keep = ember.rand_like(attn) >= dropout_p
        attn = attn * keep / (1 - dropout_p)
    if low is None:
        return ember.matmul(attn, value)
    attn.to(low)            # (torch's math path also rounds the weights it does not return)
    return ember.matmul(attn, value).to(low)


def _flash_attention_applies(query, key, value, attn_mask, dropout_p):
    """Whether torch's CPU kernel takes this attention (as torch picks it): 4-D float32 or
    float64 CPU tensors of one batch, heads and head size, no mask, no dropout, no empty
    sequence, the last dims of stride 1 (the math path below handles every other case)."""
    q, k, v = query._shape, key._shape, value._shape
    return (attn_mask is None and not dropout_p > 0.0 and len(q) == len(k) == len(v) == 4
            and query._dtype in (D.float32, D.float64) and query.device.type == "cpu"
            and key.device.type == "cpu" and value.device.type == "cpu"  # (fakes: cpu)
            and q[:2] == k[:2] == v[:2] and q[3] == k[3] == v[3] and k[2] == v[2]
            and q[2] > 0 and k[2] > 0 and q[3] > 0
            and query.stride(-1) == key.stride(-1) == value.stride(-1) == 1)


def _repeat_heads(t, heads):
    """GQA: each key/value head serves heads / t.size(-3) query heads (repeat_interleave)."""
    h = t._shape[-3]
    if heads % h:
        raise RuntimeError("Number of heads in key and value must divide the number of heads "
                           "in query")
    lead, rest = t._shape[:-3], t._shape[-2:]
    return t.unsqueeze(-3).expand(lead + (h, heads // h) + rest).reshape(lead + (heads,) + rest)
