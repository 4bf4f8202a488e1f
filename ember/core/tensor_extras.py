"""Tensor attributes that are not ops: T, mT, H, mH, __getitem__, __setitem__, new_*."""
from .tensor import Tensor


def _T(self):
    if self.dim() > 2:
        return self.permute(*range(self.dim() - 1, -1, -1))
    return self.t() if self.dim() == 2 else self


def _mT(self):
    if self.dim() < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {self.dim()}-D tensor.")
    return self.transpose(-2, -1)


def _getitem(self, index):
    from .indexing import getitem
    return getitem(self, index)


def _setitem(self, index, value):
    from .indexing import setitem
    setitem(self, index, value)


Tensor.T = property(_T)
Tensor.mT = property(_mT)
Tensor.H = property(_T)
Tensor.mH = property(_mT)
Tensor.__getitem__ = _getitem
Tensor.__setitem__ = _setitem
