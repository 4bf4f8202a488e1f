"""PLACEHOLDER: being written."""

def stack(*args):
    raise NotImplementedError('stack: not written yet')


