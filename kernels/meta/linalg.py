"""PLACEHOLDER: being written."""

def mm(*args):
    raise NotImplementedError('mm: not written yet')


def bmm(*args):
    raise NotImplementedError('bmm: not written yet')


def addmm(*args):
    raise NotImplementedError('addmm: not written yet')


