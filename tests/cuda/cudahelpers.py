"""Comparing CUDA (emulator) results with torch's CPU results."""
from helpers import check, torch


def check_cuda(e, t, tols=None):
    """ember CUDA tensor `e` equals torch CPU tensor `t`: device, shape, dtype, strides
    (non-empty), and values (exact, or within tols[dtype name])."""
    assert e.device.type == "cuda" and e.is_cuda, e.device
    check(e, t)
    check(e.cpu(), t, tols)


def torch_dtype(dt):
    return getattr(torch, dt.name)
