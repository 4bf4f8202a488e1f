"""torch's error messages that many kernels share."""
from __future__ import annotations


def not_implemented_for(kernel: str, dt) -> NotImplementedError:
    """torch's error for a kernel without a loop for this dtype.

    >>> print(not_implemented_for("pow", ember.bool))
    "pow" not implemented for 'Bool'
    """
    return NotImplementedError(f'"{kernel}" not implemented for \'{dt.scalar_name}\'')


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError (torch._C._LinAlgError): a RuntimeError raised when a
    matrix is singular or not positive-definite."""


LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"
