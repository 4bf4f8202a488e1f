"""index_put, the out-of-place form of index_put_, for every device.

    >>> x = ember.zeros(3)
    >>> ember.index_put(x, [ember.tensor([0, 2])], ember.tensor(1.)).tolist(), x.tolist()
    ([1.0, 0.0, 1.0], [0.0, 0.0, 0.0])
"""


def index_put(self, indices, values, accumulate):
    """A copy of self (same strides) with `copy[indices] = values` (or += with accumulate)."""
    return self.clone().index_put_(indices, values, accumulate)
