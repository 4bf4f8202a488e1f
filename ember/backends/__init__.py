"""Device backends beyond cpu and meta. CUDA (CuPy RawKernels) is not built yet: the
dispatch keys, keysets and allocation hook exist so that it can plug in here.

Beside it, torch.backends' flag modules (`cuda`, `cudnn`, `mkldnn`, `mps`), which scripts set
and query: ember has none of these libraries, so their flags are only kept.
"""
import contextlib


def allocator_for(device):
    raise RuntimeError(f"ember has no {device.type} backend yet (only cpu and meta); "
                       "CUDA support arrives with the CUDA backend work")


@contextlib.contextmanager
def set_flags(module, **values):
    """Sets a flags module's attributes for the block, then restores them (the `flags`
    context manager of cudnn and mkldnn)."""
    saved = {name: getattr(module, name) for name in values}
    for name, value in values.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


from . import cuda, cudnn, mkldnn, mps  # noqa: F401  (after set_flags, which they use)
