"""PLACEHOLDER (helper writing it): Generator, manual_seed."""


class Generator:
    pass


def manual_seed(s):
    raise NotImplementedError


seed = initial_seed = manual_seed
default_generator = None
