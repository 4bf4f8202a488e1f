"""Device backends beyond cpu and meta. CUDA (CuPy RawKernels) is not built yet: the
dispatch keys, keysets and allocation hook exist so that it can plug in here."""


def allocator_for(device):
    raise RuntimeError(f"ember has no {device.type} backend yet (only cpu and meta); "
                       "CUDA support arrives with the CUDA backend work")
