"""PLACEHOLDER: being written."""

def reshape(*args):
    raise NotImplementedError('reshape: not written yet')


def view_as(*args):
    raise NotImplementedError('view_as: not written yet')


def reshape_as(*args):
    raise NotImplementedError('reshape_as: not written yet')


def adjoint(*args):
    raise NotImplementedError('adjoint: not written yet')


def expand_as(*args):
    raise NotImplementedError('expand_as: not written yet')


def narrow(*args):
    raise NotImplementedError('narrow: not written yet')


def chunk(*args):
    raise NotImplementedError('chunk: not written yet')


def flatten(*args):
    raise NotImplementedError('flatten: not written yet')


def unflatten(*args):
    raise NotImplementedError('unflatten: not written yet')


def movedim_intlist(*args):
    raise NotImplementedError('movedim_intlist: not written yet')


def movedim(*args):
    raise NotImplementedError('movedim: not written yet')


