"""PLACEHOLDER: being written."""

def empty_like(*args):
    raise NotImplementedError('empty_like: not written yet')


def zeros_like(*args):
    raise NotImplementedError('zeros_like: not written yet')


def ones_like(*args):
    raise NotImplementedError('ones_like: not written yet')


def full_like(*args):
    raise NotImplementedError('full_like: not written yet')


def rand_like(*args):
    raise NotImplementedError('rand_like: not written yet')


def randn_like(*args):
    raise NotImplementedError('randn_like: not written yet')


