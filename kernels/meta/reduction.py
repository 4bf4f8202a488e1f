"""PLACEHOLDER: being written."""

def sum(*args):
    raise NotImplementedError('sum: not written yet')


def sum_dim(*args):
    raise NotImplementedError('sum_dim: not written yet')


def mean(*args):
    raise NotImplementedError('mean: not written yet')


def mean_dim(*args):
    raise NotImplementedError('mean_dim: not written yet')


def amax(*args):
    raise NotImplementedError('amax: not written yet')


def argmax(*args):
    raise NotImplementedError('argmax: not written yet')


