"""Memory planning: buffers the generated code allocates are reused once dead.

A value's buffers are the planned allocations it may alias (itself, or its base through
views; an op run by ember's kernel may alias any of its inputs). A buffer dies after the last
step reading any value over it, unless a graph output lives over it; a later allocation of
the same shape, strides and dtype then takes it (`v9 = v4  # reuses v4`) instead of
`np.empty`.
"""
from __future__ import annotations


def buffer_ends(steps, position, roots, outputs):
    """{buffer node: index of the last step reading it, or None when an output keeps it}."""
    ends = {}
    for v, bufs in roots.items():
        users = [u for u in v.users]
        last = max((position[u] for u in users), default=position[v])
        for b in bufs:
            if v in outputs or ends.get(b, 0) is None:
                ends[b] = None
            else:
                ends[b] = max(ends.get(b, 0), last)
    return ends


class Pool:
    """Dead buffers by (shape, strides, dtype), handed to the next allocation that fits."""

    def __init__(self, ends):
        self.ends = ends
        self.live = []            # (end, buffer, key)
        self.free = {}

    def take(self, key, step):
        """A dead buffer of this layout at `step` (released first), or None."""
        still = []
        for end, buf, k in self.live:
            if end < step:
                self.free.setdefault(k, []).append(buf)
            else:
                still.append((end, buf, k))
        self.live = still
        bufs = self.free.get(key)
        return bufs.pop() if bufs else None

    def add(self, buf, key):
        end = self.ends.get(buf)
        if end is not None:
            self.live.append((end, buf, key))
