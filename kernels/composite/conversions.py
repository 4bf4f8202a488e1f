"""PLACEHOLDER: being written."""

def to_dtype_layout(*args):
    raise NotImplementedError('to_dtype_layout: not written yet')


def to_device(*args):
    raise NotImplementedError('to_device: not written yet')


def to_dtype(*args):
    raise NotImplementedError('to_dtype: not written yet')


def to_other(*args):
    raise NotImplementedError('to_other: not written yet')


def contiguous(*args):
    raise NotImplementedError('contiguous: not written yet')


