"""`ember.cuda`: the CUDA backend is not built yet, so no device is ever available."""


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0
