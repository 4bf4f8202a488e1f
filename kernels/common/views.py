"""PLACEHOLDER: being written."""

def view(*args):
    raise NotImplementedError('view: not written yet')


def view_dtype(*args):
    raise NotImplementedError('view_dtype: not written yet')


def as_strided(*args):
    raise NotImplementedError('as_strided: not written yet')


def permute(*args):
    raise NotImplementedError('permute: not written yet')


def transpose(*args):
    raise NotImplementedError('transpose: not written yet')


def t(*args):
    raise NotImplementedError('t: not written yet')


def unsqueeze(*args):
    raise NotImplementedError('unsqueeze: not written yet')


def squeeze(*args):
    raise NotImplementedError('squeeze: not written yet')


def squeeze_dim(*args):
    raise NotImplementedError('squeeze_dim: not written yet')


def squeeze_dims(*args):
    raise NotImplementedError('squeeze_dims: not written yet')


def expand(*args):
    raise NotImplementedError('expand: not written yet')


def slice(*args):
    raise NotImplementedError('slice: not written yet')


def select(*args):
    raise NotImplementedError('select: not written yet')


def diagonal(*args):
    raise NotImplementedError('diagonal: not written yet')


def split(*args):
    raise NotImplementedError('split: not written yet')


def split_with_sizes(*args):
    raise NotImplementedError('split_with_sizes: not written yet')


def unbind(*args):
    raise NotImplementedError('unbind: not written yet')


def detach(*args):
    raise NotImplementedError('detach: not written yet')


def alias(*args):
    raise NotImplementedError('alias: not written yet')


