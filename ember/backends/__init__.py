"""Device backends beyond cpu and meta. CUDA (CuPy RawKernels) is not built yet: the
dispatch keys, keysets and allocation hook exist so that it can plug in here."""


def allocator_for(device):
    """`empty(shape, stride, dtype)` of a device type beyond cpu and meta."""
    if device.type == "cuda":
        from ember.cuda._runtime import empty_cuda
        return lambda shape, stride, dt: empty_cuda(device, shape, stride, dt)
    raise RuntimeError(f"ember has no {device.type} backend")
