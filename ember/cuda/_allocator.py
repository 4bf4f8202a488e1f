"""ember's CUDA caching allocator (seed 003 §12, torch's CUDACachingAllocator), one per device,
over a driver's malloc/free (CuPy on a GPU, host memory under the emulator).

Requests round up to 512 bytes. Requests up to 1 MiB come from the small pool (2 MiB
segments), larger ones from the large pool (20 MiB segments for requests under 10 MiB,
else the request rounded up to 2 MiB). A free block of the same stream is reused best-fit
and split when the rest is worth keeping; freeing coalesces with free neighbours of the
same segment. `free` never returns memory to the driver: `empty_cache` does. A block used
on other streams (`record_stream`) is reusable only once events on those streams completed.

    >>> a = CachingAllocator(driver); b = a.malloc(1000, stream=0)   # doctest: +SKIP
    >>> b.size, a.stats["reserved_bytes"][0].current    # 2 MiB segment  # doctest: +SKIP
    (1024, 2097152)
"""
from __future__ import annotations

import bisect
import os
import time
import traceback

from ..dispatch import observers as _observers

MIN_BLOCK = 512
SMALL_SIZE = 1 << 20            # largest "small" request
SMALL_BUFFER = 2 << 20          # small pool segment size
LARGE_BUFFER = 20 << 20         # large pool segment size for requests under MIN_LARGE_ALLOC
MIN_LARGE_ALLOC = 10 << 20
ROUND_LARGE = 2 << 20
ALL, SMALL, LARGE = 0, 1, 2     # stat slots: all pools, small pool, large pool
POOL_NAMES = ("all", "small_pool", "large_pool")


class OutOfMemoryError(RuntimeError):
    """A CUDA allocation that failed even after freeing the cache (torch.OutOfMemoryError)."""


def parse_alloc_conf(conf: str) -> dict:
    """'max_split_size_mb:128,garbage_collection_threshold:0.8' -> settings (torch's syntax)."""
    out = {"max_split_size": None, "garbage_collection_threshold": 0.0}
    for item in filter(None, (s.strip() for s in conf.split(","))):
        key, sep, value = item.partition(":")
        if not sep:
            raise RuntimeError(f"Expected a colon in EMBER_CUDA_ALLOC_CONF item {item!r}")
        if key == "max_split_size_mb":
            mb = int(value)
            if mb <= MIN_LARGE_ALLOC >> 20:
                raise RuntimeError(f"CachingAllocator option max_split_size_mb too small, must "
                                   f"be > {MIN_LARGE_ALLOC >> 20}")
            out["max_split_size"] = mb << 20
        elif key == "garbage_collection_threshold":
            t = float(value)
            if not 0.0 < t < 1.0:
                raise RuntimeError("garbage_collect_threshold too small, set it 0.0~1.0"
                                   if t <= 0 else "garbage_collect_threshold too big, set it 0.0~1.0")
            out["garbage_collection_threshold"] = t
        else:
            raise RuntimeError(f"Unrecognized CachingAllocator option: {key}")
    return out


def round_size(size: int) -> int:
    return MIN_BLOCK if size < MIN_BLOCK else -(-size // MIN_BLOCK) * MIN_BLOCK


def segment_size(size: int) -> int:
    if size <= SMALL_SIZE:
        return SMALL_BUFFER
    if size < MIN_LARGE_ALLOC:
        return LARGE_BUFFER
    return -(-size // ROUND_LARGE) * ROUND_LARGE


def format_size(n: int) -> str:
    """torch's size text in OOM messages: '512 bytes', '2.00 MiB'."""
    if n <= 1024:
        return f"{n} bytes"
    if n <= 1 << 20:
        return f"{n / 1024:.2f} KiB"
    if n <= 1 << 30:
        return f"{n / (1 << 20):.2f} MiB"
    return f"{n / (1 << 30):.2f} GiB"


class Stat:
    """current / peak / allocated (sum of increases) / freed (sum of decreases)."""

    __slots__ = ("allocated", "current", "freed", "peak")

    def __init__(self):
        self.current = self.peak = self.allocated = self.freed = 0

    def update(self, delta: int) -> None:
        self.current += delta
        if delta > 0:
            self.allocated += delta
        else:
            self.freed -= delta
        self.peak = max(self.peak, self.current)


class Block:
    """A span of a segment: allocated to a tensor, or free in its pool."""

    __slots__ = ("allocated", "gc_count", "next", "pool", "prev", "ptr", "requested", "size",
                 "stream", "stream_uses")

    def __init__(self, ptr, size, stream, pool):
        self.ptr, self.size, self.stream, self.pool = ptr, size, stream, pool
        self.requested = 0
        self.allocated = False
        self.prev = self.next = None
        self.stream_uses: set = set()
        self.gc_count = 0

    @property
    def is_split(self) -> bool:
        return self.prev is not None or self.next is not None

    def key(self):
        return (self.stream, self.size, self.ptr)

    def __repr__(self):
        return (f"Block(ptr={self.ptr:#x}, size={self.size}, stream={self.stream}, "
                f"{'allocated' if self.allocated else 'free'})")


class CachingAllocator:
    """The caching allocator of one device (see the module docstring)."""

    def __init__(self, driver, device: int = 0, conf: str | None = None):
        self.driver = driver
        self.device = device
        cfg = parse_alloc_conf(os.environ.get("EMBER_CUDA_ALLOC_CONF", "") if conf is None
                               else conf)
        self.max_split_size = cfg["max_split_size"] or (1 << 63) - 1
        self.gc_threshold = cfg["garbage_collection_threshold"]
        self.pools = {SMALL: [], LARGE: []}   # free blocks, sorted by (stream, size, ptr)
        self.active: dict[int, Block] = {}     # ptr -> allocated block
        self.pending: list[tuple[Block, list]] = []   # freed, waiting for other streams' events
        self.history: list | None = None       # _record_memory_history's trace
        self.history_max = 0
        self.reset_stats()

    # --- stats --------------------------------------------------------------------------
    def reset_stats(self) -> None:
        self.stats = {name: [Stat(), Stat(), Stat()] for name in (
            "allocation", "segment", "active", "inactive_split", "allocated_bytes",
            "reserved_bytes", "active_bytes", "inactive_split_bytes", "requested_bytes")}
        self.oversize_allocations = Stat()
        self.oversize_segments = Stat()
        self.counters = dict.fromkeys(("num_alloc_retries", "num_ooms", "num_sync_all_streams",
                                       "num_device_alloc", "num_device_free"), 0)

    def _update(self, name: str, pool: int, delta: int) -> None:
        s = self.stats[name]
        s[ALL].update(delta)
        s[pool].update(delta)

    def reset_peak_stats(self) -> None:
        for arr in self.stats.values():
            for s in arr:
                s.peak = s.current
        for s in (self.oversize_allocations, self.oversize_segments):
            s.peak = s.current

    def reset_accumulated_stats(self) -> None:
        for arr in self.stats.values():
            for s in arr:
                s.allocated = s.freed = 0
        for s in (self.oversize_allocations, self.oversize_segments):
            s.allocated = s.freed = 0
        for k in self.counters:
            self.counters[k] = 0

    def memory_stats(self) -> dict:
        """torch.cuda.memory_stats's flat dict: 'allocated_bytes.all.current', ..."""
        out = {}
        for name, arr in self.stats.items():
            for pool, s in zip(POOL_NAMES, (arr[ALL], arr[SMALL], arr[LARGE])):
                for field in ("current", "peak", "allocated", "freed"):
                    out[f"{name}.{pool}.{field}"] = getattr(s, field)
        for name, s in (("oversize_allocations", self.oversize_allocations),
                        ("oversize_segments", self.oversize_segments)):
            for field in ("current", "peak", "allocated", "freed"):
                out[f"{name}.{field}"] = getattr(s, field)
        out.update(self.counters)
        out["max_split_size"] = -1 if self.max_split_size == (1 << 63) - 1 else self.max_split_size
        return dict(sorted(out.items()))

    # --- allocation -----------------------------------------------------------------------
    def malloc(self, nbytes: int, stream: int = 0) -> Block:
        """A block of at least `nbytes` usable on `stream`."""
        self._process_events()
        size = round_size(nbytes)
        pool = SMALL if size <= SMALL_SIZE else LARGE
        block = self._free_block(pool, size, stream)
        if block is None:
            block = self._new_segment(pool, size, stream, nbytes)
        already_split = block.is_split
        if self._should_split(block, size):
            rest = Block(block.ptr + size, block.size - size, stream, pool)
            rest.prev, rest.next = block, block.next
            if block.next is not None:
                block.next.prev = rest
            block.next = rest
            block.size = size
            self._insert(rest)
            if already_split:   # an inactive split block shrinks by `size`
                self._update("inactive_split_bytes", pool, -size)
            else:               # a new inactive split block: the rest
                self._update("inactive_split", pool, 1)
                self._update("inactive_split_bytes", pool, rest.size)
        elif already_split:     # an inactive split block becomes active whole
            self._update("inactive_split", pool, -1)
            self._update("inactive_split_bytes", pool, -block.size)
        block.allocated = True
        block.requested = nbytes
        self.active[block.ptr] = block
        for name, delta in (("allocation", 1), ("active", 1), ("allocated_bytes", block.size),
                            ("active_bytes", block.size), ("requested_bytes", nbytes)):
            self._update(name, pool, delta)
        if block.size >= self.max_split_size:
            self.oversize_allocations.update(1)
        self._trace("alloc", block.ptr, block.size, stream)
        _observers.memory(block.size, ("cuda", self.device))
        return block

    def _free_block(self, pool: int, size: int, stream) -> Block | None:
        free = self.pools[pool]
        i = bisect.bisect_left(free, (stream, size, -1), key=Block.key)
        if i == len(free) or free[i].stream != stream:
            return None
        b = free[i]
        # no oversize block for a small request, and not one much larger for an oversize one
        if size < self.max_split_size <= b.size:
            return None
        if size >= self.max_split_size and b.size >= size + LARGE_BUFFER:
            return None
        del free[i]
        return b

    def _new_segment(self, pool: int, size: int, stream, nbytes: int) -> Block:
        alloc = segment_size(size)
        if self.gc_threshold and self._reserved() + alloc > self.gc_threshold * self.driver.total_memory():
            self._release_cached()
        try:
            ptr = self.driver.malloc(alloc)
        except MemoryError:
            self.counters["num_alloc_retries"] += 1
            self._release_cached()
            try:
                ptr = self.driver.malloc(alloc)
            except MemoryError:
                self.counters["num_ooms"] += 1
                raise self._oom(nbytes) from None
        self.counters["num_device_alloc"] += 1
        self._update("segment", pool, 1)
        self._update("reserved_bytes", pool, alloc)
        if alloc >= self.max_split_size:
            self.oversize_segments.update(1)
        self._trace("segment_alloc", ptr, alloc, stream)
        return Block(ptr, alloc, stream, pool)

    def _should_split(self, block: Block, size: int) -> bool:
        rest = block.size - size
        if block.pool == SMALL:
            return rest >= MIN_BLOCK
        return size < self.max_split_size and rest > SMALL_SIZE

    def _reserved(self) -> int:
        return self.stats["reserved_bytes"][ALL].current

    def _oom(self, nbytes: int) -> OutOfMemoryError:
        free, total = self.driver.mem_get_info()
        allocated = self.stats["allocated_bytes"][ALL].current
        unallocated = self._reserved() - allocated
        return OutOfMemoryError(
            f"CUDA out of memory. Tried to allocate {format_size(round_size(nbytes))}. GPU "
            f"{self.device} has a total capacity of {format_size(total)} of which "
            f"{format_size(free)} is free. Of the allocated memory {format_size(allocated)} is "
            f"allocated by ember, and {format_size(unallocated)} is reserved by ember but "
            "unallocated. If reserved but unallocated memory is large try setting "
            "EMBER_CUDA_ALLOC_CONF=max_split_size_mb:<MB> to avoid fragmentation.")

    # --- free -----------------------------------------------------------------------------
    def free(self, block: Block) -> None:
        """Returns a block to its pool (after other streams' work on it, see record_stream)."""
        del self.active[block.ptr]
        block.allocated = False
        pool = block.pool
        for name, delta in (("allocation", -1), ("allocated_bytes", -block.size),
                            ("requested_bytes", -block.requested)):
            self._update(name, pool, delta)
        if block.size >= self.max_split_size:
            self.oversize_allocations.update(-1)
        self._trace("free_requested", block.ptr, block.size, block.stream)
        _observers.memory(-block.size, ("cuda", self.device))
        if block.stream_uses:
            events = [self.driver.record_event(s) for s in block.stream_uses]
            block.stream_uses = set()
            self.pending.append((block, events))
        else:
            self._release_block(block)

    def record_stream(self, block: Block, stream) -> None:
        if stream != block.stream:
            block.stream_uses.add(stream)

    def _process_events(self) -> None:
        if not self.pending:
            return
        still = []
        for block, events in self.pending:
            if all(self.driver.event_done(e) for e in events):
                self._release_block(block)
            else:
                still.append((block, events))
        self.pending = still

    def _release_block(self, block: Block) -> None:
        """An inactive block joins its free neighbours and goes back to its pool."""
        pool = block.pool
        self._update("active", pool, -1)
        self._update("active_bytes", pool, -block.size)
        self._trace("free_completed", block.ptr, block.size, block.stream)
        for nb in (block.prev, block.next):
            if nb is None or nb.allocated or self._is_pending(nb):
                continue
            self._remove(nb)
            self._update("inactive_split", pool, -1)
            self._update("inactive_split_bytes", pool, -nb.size)
            if nb is block.prev:
                block.ptr, block.prev = nb.ptr, nb.prev
                if nb.prev is not None:
                    nb.prev.next = block
            else:
                block.next = nb.next
                if nb.next is not None:
                    nb.next.prev = block
            block.size += nb.size
        if block.is_split:
            self._update("inactive_split", pool, 1)
            self._update("inactive_split_bytes", pool, block.size)
        self._insert(block)

    def _is_pending(self, block: Block) -> bool:
        return any(b is block for b, _ in self.pending)

    def _insert(self, block: Block) -> None:
        bisect.insort(self.pools[block.pool], block, key=Block.key)

    def _remove(self, block: Block) -> None:
        free = self.pools[block.pool]
        i = bisect.bisect_left(free, block.key(), key=Block.key)
        assert free[i] is block
        del free[i]

    # --- releasing the cache ------------------------------------------------------------
    def empty_cache(self) -> None:
        """Gives every segment that is wholly free back to the driver."""
        self.driver.synchronize()
        self._process_events()
        self._release_cached()

    def _release_cached(self) -> None:
        for pool in (SMALL, LARGE):
            for b in [b for b in self.pools[pool] if not b.is_split]:
                self._remove(b)
                self.driver.free(b.ptr)
                self.counters["num_device_free"] += 1
                self._update("segment", pool, -1)
                self._update("reserved_bytes", pool, -b.size)
                if b.size >= self.max_split_size:
                    self.oversize_segments.update(-1)
                self._trace("segment_free", b.ptr, b.size, b.stream)

    # --- snapshots (torch.cuda.memory._snapshot's format) ---------------------------------
    def record_history(self, enabled, max_entries: int) -> None:
        self.history = [] if enabled else None
        self.history_max = max_entries

    def _trace(self, action, ptr, size, stream) -> None:
        h = self.history
        if h is None:
            return
        frames = [{"filename": f.filename, "line": f.lineno, "name": f.name}
                  for f in reversed(traceback.extract_stack(limit=12)[:-2])]
        h.append({"action": action, "addr": ptr, "size": size, "stream": stream,
                  "time_us": int(time.time() * 1e6), "frames": frames})
        if len(h) > self.history_max:
            del h[0]

    def segments(self) -> list[dict]:
        heads = {}
        for b in list(self.active.values()) + [b for p in self.pools.values() for b in p] + [
                b for b, _ in self.pending]:
            head = b
            while head.prev is not None:
                head = head.prev
            heads[head.ptr] = head
        out = []
        for ptr in sorted(heads):
            blocks, b = [], heads[ptr]
            while b is not None:
                state = ("active_allocated" if b.allocated else "active_pending_free"
                         if self._is_pending(b) else "inactive")
                blocks.append({"address": b.ptr, "size": b.size, "requested_size": b.requested
                               if b.allocated else 0, "state": state, "frames": []})
                b = b.next
            out.append({
                "device": self.device, "address": ptr, "stream": heads[ptr].stream,
                "total_size": sum(x["size"] for x in blocks),
                "allocated_size": sum(x["size"] for x in blocks if x["state"] == "active_allocated"),
                "active_size": sum(x["size"] for x in blocks if x["state"] != "inactive"),
                "requested_size": sum(x["requested_size"] for x in blocks),
                "segment_type": "small" if heads[ptr].pool == SMALL else "large",
                "segment_pool_id": (0, 0), "is_expandable": False, "frames": [],
                "blocks": blocks})
        return out
