"""PLACEHOLDER: being written."""

def clone(*args):
    raise NotImplementedError('clone: not written yet')


def copy_(*args):
    raise NotImplementedError('copy_: not written yet')


def to_copy(*args):
    raise NotImplementedError('to_copy: not written yet')


def fill_(*args):
    raise NotImplementedError('fill_: not written yet')


def fill_tensor_(*args):
    raise NotImplementedError('fill_tensor_: not written yet')


def zero_(*args):
    raise NotImplementedError('zero_: not written yet')


