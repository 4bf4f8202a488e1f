"""`ember.functional`: torch.functional's module path for the top-level functions torch
writes in Python (they live at ember's top level)."""
from . import (  # noqa: F401
    atleast_1d,
    atleast_2d,
    atleast_3d,
    block_diag,
    broadcast_shapes,
    broadcast_tensors,
    cartesian_prod,
    cdist,
    chain_matmul,
    einsum,
    meshgrid,
    norm,
    split,
    stft,
    tensordot,
    unique,
    unique_consecutive,
    unravel_index,
)
