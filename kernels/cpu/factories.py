"""PLACEHOLDER: being written."""

def empty(*args):
    raise NotImplementedError('empty: not written yet')


def empty_strided(*args):
    raise NotImplementedError('empty_strided: not written yet')


def zeros(*args):
    raise NotImplementedError('zeros: not written yet')


def ones(*args):
    raise NotImplementedError('ones: not written yet')


def full(*args):
    raise NotImplementedError('full: not written yet')


def scalar_tensor(*args):
    raise NotImplementedError('scalar_tensor: not written yet')


def arange(*args):
    raise NotImplementedError('arange: not written yet')


def arange_start(*args):
    raise NotImplementedError('arange_start: not written yet')


def arange_start_step(*args):
    raise NotImplementedError('arange_start_step: not written yet')


def rand(*args):
    raise NotImplementedError('rand: not written yet')


def randn(*args):
    raise NotImplementedError('randn: not written yet')


