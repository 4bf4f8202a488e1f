"""matmul and linear, decomposed into mm/bmm/addmm and view ops (torch's rank rules).

    >>> ember.matmul(ember.ones(5, 2, 3), ember.ones(3)).shape   # batched matrix-vector
    ember.Size([5, 2])
    >>> ember.matmul(ember.ones(3), ember.ones(3))              # 1-D . 1-D: a 0-d dot
    tensor(3.)
"""
import ember
from ember.core.shapes import broadcast_shapes


def _dot(a, b):
    """1-D . 1-D -> 0-d: aten dot (its checks and gradient), like torch's matmul."""
    return ember.dot(a, b)


def _mv(mat, vec):
    """(n x k) . (k,) -> (n,): aten mv."""
    return ember.mv(mat, vec)


def matmul(self, other):
    """The matrix product with broadcasting, like torch.matmul / NumPy's `@`:

    1-D.1-D dot, 2-D.1-D mv, 1-D.2-D and 2-D.2-D mm; N-D (N >= 3) by 1-D/2-D folds the
    batch into the rows of one mm; everything else broadcasts the batch dims and runs bmm.
    """
    d1, d2 = self.dim(), other.dim()
    if d1 == 0 or d2 == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{d1}D and {d2}D")
    if d1 == 1 and d2 == 1:
        return _dot(self, other)
    if d1 == 2 and d2 == 1:
        return _mv(self, other)
    if d1 == 1 and d2 == 2:
        return ember.mm(self.unsqueeze(0), other).squeeze(0)
    if d1 == 2 and d2 == 2:
        return ember.mm(self, other)
    if d1 >= 3 and d2 <= 2:
        batch_rows = self.shape[:-1]
        folded = self.reshape(_prod(batch_rows), self._shape[-1])
        if d2 == 1:
            return _mv(folded, other).view(batch_rows)
        return ember.mm(folded, other).view(batch_rows + (other._shape[1],))
    return _batched(self, other, d1, d2)


def _batched(a, b, d1, d2):
    """Broadcast batch dims, flatten them into one, bmm, and view back."""
    n = a._shape[-2] if d1 > 1 else 1
    k1 = a._shape[-1]
    k2 = b._shape[-2] if d2 > 1 else b._shape[0]
    p = b._shape[-1] if d2 > 1 else 1
    batch = broadcast_shapes(a._shape[:-2], b._shape[:-2] if d2 > 2 else ())
    size = _prod(batch)
    a3 = a.expand(batch + (n, k1)).reshape(size, n, k1)
    if d2 == 1:
        b3 = b.expand(batch + (k2,)).reshape(size, k2).unsqueeze(2)
    else:
        b3 = b.expand(batch + (k2, p)).reshape(size, k2, p)
    out_shape = batch + ((n,) if d1 > 1 else ()) + ((p,) if d2 > 1 else ())
    return ember.bmm(a3, b3).view(out_shape)


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def linear(input, weight, bias):
    """`input @ weight.T + bias`: one addmm for 2-D input (and contiguous N-D input, whose
    leading dims are flattened, like torch), else matmul then add.

    >>> ember.linear(ember.ones(5, 3), ember.ones(4, 3), ember.zeros(4)).shape
    ember.Size([5, 4])
    """
    if bias is not None:
        if input.dim() == 2:
            return ember.addmm(bias, input, weight.t())
        if input.dim() >= 3 and input.is_contiguous() and (input.dim() == 3 or bias.dim() == 1):
            flat = input.flatten(0, -2)
            out = ember.addmm(bias, flat, weight.t())
            return out.view(input.shape[:-1] + (weight._shape[0],))
    out = ember.matmul(input, weight.t())
    return out if bias is None else ember.add(out, bias)
