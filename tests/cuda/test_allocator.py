"""ember's caching allocator (seed 003 §12): torch's rounding, pools, best-fit reuse,
splitting, coalescing, stream-ordered reuse, empty_cache, OOM retry, and its statistics to
the byte (torch's memory_stats keys; memory_summary's table equals torch's own rendering)."""
import pytest

from ember.cuda import _allocator as A

MiB = 1 << 20


class FakeDriver:
    """Addresses only; events complete when the test says so."""

    def __init__(self, capacity=1 << 34):
        self.capacity, self.used, self.next, self.segments = capacity, 0, 1 << 32, {}
        self.done = True
        self.syncs = 0

    def malloc(self, n):
        if self.used + n > self.capacity:
            raise MemoryError(n)
        ptr, self.next = self.next, self.next + n + (1 << 20)
        self.segments[ptr] = n
        self.used += n
        return ptr

    def free(self, ptr):
        self.used -= self.segments.pop(ptr)

    def mem_get_info(self):
        return self.capacity - self.used, self.capacity

    def total_memory(self):
        return self.capacity

    def record_event(self, stream):
        return stream

    def event_done(self, ev):
        return self.done

    def synchronize(self):
        self.syncs += 1
        self.done = True


@pytest.fixture
def alloc():
    return A.CachingAllocator(FakeDriver(), conf="")


def cur(a, name, pool="all"):
    return a.memory_stats()[f"{name}.{pool}.current"]


def test_small_request_rounds_to_512_in_a_2mib_segment(alloc):
    b = alloc.malloc(1)
    assert b.size == 512 and b.requested == 1
    st = alloc.memory_stats()
    assert st["allocated_bytes.all.current"] == 512
    assert st["allocated_bytes.small_pool.current"] == 512
    assert st["requested_bytes.all.current"] == 1
    assert st["reserved_bytes.all.current"] == 2 * MiB
    assert st["segment.small_pool.current"] == 1
    assert st["inactive_split_bytes.all.current"] == 2 * MiB - 512
    assert st["inactive_split.all.current"] == 1
    assert st["num_device_alloc"] == 1


@pytest.mark.parametrize("request_bytes,block,segment,pool", [
    (1000, 1024, 2 * MiB, "small_pool"),
    (MiB, MiB, 2 * MiB, "small_pool"),
    (MiB + 1, MiB + 512, 20 * MiB, "large_pool"),
    (9 * MiB, 9 * MiB, 20 * MiB, "large_pool"),
    (10 * MiB, 10 * MiB, 10 * MiB, "large_pool"),
    (11 * MiB + 3, 12 * MiB, 12 * MiB, "large_pool"),   # rest < 1 MiB: taken whole
])
def test_rounding_and_segment_sizes(alloc, request_bytes, block, segment, pool):
    b = alloc.malloc(request_bytes)
    assert b.size == block
    assert cur(alloc, "reserved_bytes", pool) == segment
    assert cur(alloc, "allocated_bytes", pool) == block


def test_best_fit_reuse_split_and_coalesce(alloc):
    a, b, c = alloc.malloc(1024), alloc.malloc(2048), alloc.malloc(4096)
    assert (b.ptr - a.ptr, c.ptr - b.ptr) == (1024, 2048)     # carved from one segment
    assert cur(alloc, "reserved_bytes") == 2 * MiB
    alloc.free(b)
    assert cur(alloc, "inactive_split_bytes") == 2 * MiB - 1024 - 4096
    assert cur(alloc, "inactive_split") == 2
    d = alloc.malloc(1500)                 # best fit: the 2048 hole, split into 1536 + 512
    assert d.ptr == b.ptr and d.size == 1536
    assert cur(alloc, "inactive_split") == 2
    assert cur(alloc, "inactive_split_bytes") == 512 + 2 * MiB - 7168
    alloc.free(d)
    alloc.free(c)                          # c merges with both free neighbours
    alloc.free(a)                          # everything merges back into one free segment
    assert cur(alloc, "inactive_split") == 0 and cur(alloc, "inactive_split_bytes") == 0
    assert cur(alloc, "allocated_bytes") == 0 and cur(alloc, "active_bytes") == 0
    assert len(alloc.pools[A.SMALL]) == 1 and alloc.pools[A.SMALL][0].size == 2 * MiB
    assert cur(alloc, "reserved_bytes") == 2 * MiB       # cached, not given back
    st = alloc.memory_stats()
    assert st["allocated_bytes.all.allocated"] == 1024 + 2048 + 4096 + 1536
    assert st["allocated_bytes.all.freed"] == st["allocated_bytes.all.allocated"]
    assert st["allocated_bytes.all.peak"] == 1024 + 2048 + 4096
    assert st["allocation.all.allocated"] == 4


def test_large_pool_keeps_small_remainders_unsplit(alloc):
    a = alloc.malloc(19 * MiB + 512)       # the 20 MiB segment's remainder < 1 MiB: not split
    assert a.size == 20 * MiB and a.next is None
    assert cur(alloc, "allocated_bytes") == 20 * MiB
    assert cur(alloc, "requested_bytes") == 19 * MiB + 512
    b = alloc.malloc(2 * MiB)
    alloc.free(b)
    c = alloc.malloc(3 * MiB)              # 20 MiB segment: 3 MiB used, 17 MiB split off
    assert c.next is not None and c.next.size == 17 * MiB


def test_streams_do_not_share_free_blocks(alloc):
    a = alloc.malloc(1024, stream=1)
    alloc.free(a)
    b = alloc.malloc(1024, stream=2)
    assert b.ptr != a.ptr and cur(alloc, "segment") == 2
    c = alloc.malloc(1024, stream=1)
    assert c.ptr == a.ptr


def test_record_stream_delays_reuse_until_the_events_complete(alloc):
    drv = alloc.driver
    a = alloc.malloc(1024, stream=1)
    alloc.record_stream(a, 2)
    drv.done = False
    alloc.free(a)
    assert cur(alloc, "allocated_bytes") == 0
    assert cur(alloc, "active_bytes") == 1024           # pending: still active
    b = alloc.malloc(1024, stream=1)
    assert b.ptr != a.ptr
    drv.done = True
    alloc.free(b)
    c = alloc.malloc(1024, stream=1)                    # events done: a is reusable again
    assert c.ptr == a.ptr
    assert cur(alloc, "active_bytes") == 1024


def test_empty_cache_releases_only_wholly_free_segments(alloc):
    keep = alloc.malloc(1024)
    big = alloc.malloc(12 * MiB)
    alloc.free(big)
    assert cur(alloc, "reserved_bytes") == 14 * MiB
    alloc.empty_cache()
    assert cur(alloc, "reserved_bytes") == 2 * MiB
    assert alloc.memory_stats()["num_device_free"] == 1
    alloc.free(keep)
    alloc.empty_cache()
    assert cur(alloc, "reserved_bytes") == 0 and alloc.driver.used == 0


def test_out_of_memory_frees_the_cache_retries_then_raises():
    drv = FakeDriver(capacity=30 * MiB)
    alloc = A.CachingAllocator(drv, conf="")
    alloc.free(alloc.malloc(12 * MiB))            # 12 MiB cached
    b = alloc.malloc(20 * MiB)                    # needs the cache back: one retry
    st = alloc.memory_stats()
    assert st["num_alloc_retries"] == 1 and st["num_ooms"] == 0
    assert cur(alloc, "reserved_bytes") == 20 * MiB
    with pytest.raises(A.OutOfMemoryError) as e:
        alloc.malloc(16 * MiB)
    assert str(e.value).startswith(
        "CUDA out of memory. Tried to allocate 16.00 MiB. GPU 0 has a total capacity of "
        "30.00 MiB of which 10.00 MiB is free. Of the allocated memory 20.00 MiB is allocated "
        "by ember, and 0 bytes is reserved by ember but unallocated.")
    assert alloc.memory_stats()["num_ooms"] == 1
    assert isinstance(e.value, RuntimeError)
    alloc.free(b)


def test_max_split_size_keeps_oversize_blocks_whole():
    alloc = A.CachingAllocator(FakeDriver(), conf="max_split_size_mb:20")
    a = alloc.malloc(40 * MiB)
    alloc.free(a)
    b = alloc.malloc(30 * MiB)               # 40 >= 30 + 20 MiB? no: reused whole (not split)
    assert b.ptr == a.ptr and b.size == 40 * MiB
    alloc.free(b)
    c = alloc.malloc(12 * MiB)               # a small request never takes an oversize block
    assert c.ptr != a.ptr
    st = alloc.memory_stats()
    assert st["max_split_size"] == 20 * MiB
    assert st["oversize_segments.current"] == 1 and st["oversize_allocations.allocated"] == 2


@pytest.mark.parametrize("conf,message", [
    ("max_split_size_mb:5", "max_split_size_mb too small"),
    ("garbage_collection_threshold:1.5", "garbage_collect_threshold too big"),
    ("nonsense:1", "Unrecognized CachingAllocator option: nonsense"),
])
def test_bad_alloc_conf(conf, message):
    with pytest.raises(RuntimeError, match=message):
        A.CachingAllocator(FakeDriver(), conf=conf)


def test_reset_peak_and_accumulated(alloc):
    a = alloc.malloc(4096)
    alloc.free(a)
    alloc.reset_peak_stats()
    assert alloc.memory_stats()["allocated_bytes.all.peak"] == 0
    alloc.reset_accumulated_stats()
    st = alloc.memory_stats()
    assert st["allocated_bytes.all.allocated"] == 0 and st["num_device_alloc"] == 0


def test_stats_have_torchs_keys(alloc):
    torch = pytest.importorskip("torch")
    alloc.free(alloc.malloc(100))
    keys = set(alloc.memory_stats())
    nested = torch.cuda.memory_stats_as_nested_dict  # noqa: F841  (exists; needs a GPU to call)
    for name in ("allocated_bytes", "reserved_bytes", "active_bytes", "inactive_split_bytes",
                 "requested_bytes", "allocation", "segment", "active", "inactive_split"):
        for pool in ("all", "small_pool", "large_pool"):
            for f in ("current", "peak", "allocated", "freed"):
                assert f"{name}.{pool}.{f}" in keys
    assert {"num_alloc_retries", "num_ooms", "num_device_alloc", "num_device_free",
            "num_sync_all_streams", "max_split_size", "oversize_allocations.current",
            "oversize_segments.peak"} <= keys


@pytest.mark.parametrize("abbreviated", [False, True])
def test_memory_summary_renders_like_torch(alloc, monkeypatch, abbreviated):
    torch = pytest.importorskip("torch")
    from ember.cuda._summary import summary
    blocks = [alloc.malloc(n) for n in (100, 3 * MiB, 900 * 1024, 50 * MiB)]
    alloc.free(blocks[1])
    stats = alloc.memory_stats()
    monkeypatch.setattr(torch.cuda.memory, "memory_stats", lambda device=None: stats)
    assert summary(stats, 0, abbreviated) == torch.cuda.memory_summary(0, abbreviated)


def test_snapshot_segments_and_history(alloc):
    alloc.record_history(True, 100)
    a = alloc.malloc(1024)
    b = alloc.malloc(2048)
    alloc.free(a)
    seg, = alloc.segments()
    assert seg["total_size"] == 2 * MiB and seg["segment_type"] == "small"
    assert seg["allocated_size"] == 2048 and seg["requested_size"] == 2048
    assert [(x["size"], x["state"]) for x in seg["blocks"]] == [
        (1024, "inactive"), (2048, "active_allocated"), (2 * MiB - 3072, "inactive")]
    actions = [e["action"] for e in alloc.history]
    assert actions == ["segment_alloc", "alloc", "alloc", "free_requested", "free_completed"]
    assert alloc.history[1]["addr"] == a.ptr and alloc.history[1]["size"] == 1024
    alloc.free(b)
