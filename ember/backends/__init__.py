"""Device backends beyond cpu and meta: `allocator_for` gives a device's allocation
function (CUDA: ember's caching allocator, ember/cuda/).

Beside it, torch.backends' flag modules (`cuda`, `cudnn`, `mkldnn`, `mps`), which scripts set
and query: ember has none of these libraries, so their flags are only kept.
"""
import contextlib


def allocator_for(device):
    """`empty(shape, stride, dtype)` of a device type beyond cpu and meta."""
    if device.type == "cuda":
        from ember.cuda._runtime import empty_cuda
        return lambda shape, stride, dt: empty_cuda(device, shape, stride, dt)
    raise RuntimeError(f"ember has no {device.type} backend")


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
