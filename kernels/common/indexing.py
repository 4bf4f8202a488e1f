"""PLACEHOLDER: being written."""

def index_put(*args):
    raise NotImplementedError('index_put: not written yet')


