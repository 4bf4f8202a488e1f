"""PLACEHOLDER: being written."""

def add(*args):
    raise NotImplementedError('add: not written yet')


def add_(*args):
    raise NotImplementedError('add_: not written yet')


def sub(*args):
    raise NotImplementedError('sub: not written yet')


def sub_(*args):
    raise NotImplementedError('sub_: not written yet')


def mul(*args):
    raise NotImplementedError('mul: not written yet')


def mul_(*args):
    raise NotImplementedError('mul_: not written yet')


def div(*args):
    raise NotImplementedError('div: not written yet')


def div_(*args):
    raise NotImplementedError('div_: not written yet')


def div_mode(*args):
    raise NotImplementedError('div_mode: not written yet')


def div_mode_(*args):
    raise NotImplementedError('div_mode_: not written yet')


def pow(*args):
    raise NotImplementedError('pow: not written yet')


def pow_scalar(*args):
    raise NotImplementedError('pow_scalar: not written yet')


def pow_(*args):
    raise NotImplementedError('pow_: not written yet')


def eq(*args):
    raise NotImplementedError('eq: not written yet')


def ne(*args):
    raise NotImplementedError('ne: not written yet')


def lt(*args):
    raise NotImplementedError('lt: not written yet')


def le(*args):
    raise NotImplementedError('le: not written yet')


def gt(*args):
    raise NotImplementedError('gt: not written yet')


def ge(*args):
    raise NotImplementedError('ge: not written yet')


def where(*args):
    raise NotImplementedError('where: not written yet')


def clamp(*args):
    raise NotImplementedError('clamp: not written yet')


def clamp_(*args):
    raise NotImplementedError('clamp_: not written yet')


def masked_fill(*args):
    raise NotImplementedError('masked_fill: not written yet')


def masked_fill_(*args):
    raise NotImplementedError('masked_fill_: not written yet')


def neg(*args):
    raise NotImplementedError('neg: not written yet')


def neg_(*args):
    raise NotImplementedError('neg_: not written yet')


def exp(*args):
    raise NotImplementedError('exp: not written yet')


def exp_(*args):
    raise NotImplementedError('exp_: not written yet')


def log(*args):
    raise NotImplementedError('log: not written yet')


def log_(*args):
    raise NotImplementedError('log_: not written yet')


def relu(*args):
    raise NotImplementedError('relu: not written yet')


def relu_(*args):
    raise NotImplementedError('relu_: not written yet')


def sigmoid(*args):
    raise NotImplementedError('sigmoid: not written yet')


def sigmoid_(*args):
    raise NotImplementedError('sigmoid_: not written yet')


def tanh(*args):
    raise NotImplementedError('tanh: not written yet')


def tanh_(*args):
    raise NotImplementedError('tanh_: not written yet')


