"""`ember.cuda.memory_summary`'s text: torch.cuda.memory_summary's table, from the stats."""
from __future__ import annotations


def _size(n: int, pref: float) -> str:
    prefixes = ["B  ", "KiB", "MiB", "GiB", "TiB", "PiB"]
    k = 0
    while k + 1 < len(prefixes) and pref >= 768 * 1024:
        k, n, pref = k + 1, n // 1024, pref / 1024
    return f"{n:6d} {prefixes[k]}"


def _count(n: int, pref: float) -> str:
    prefixes = [" ", "K", "M"]
    k = 0
    while k + 1 < len(prefixes) and pref >= 750 * 1000:
        k, n, pref = k + 1, n // 1000, pref / 1000
    return f"{n:7d} {prefixes[k]} "


_POOLED = [("allocated_bytes", "Allocated memory", _size),
           ("active_bytes", "Active memory", _size),
           ("requested_bytes", "Requested memory", _size),
           ("reserved_bytes", "GPU reserved memory", _size),
           ("inactive_split_bytes", "Non-releasable memory", _size),
           ("allocation", "Allocations", _count),
           ("active", "Active allocs", _count),
           ("segment", "GPU reserved segments", _count),
           ("inactive_split", "Non-releasable allocs", _count)]
_FIELDS = ("current", "peak", "allocated", "freed")


def summary(stats: dict, device: int, abbreviated: bool = False) -> str:
    rule, double = "-" * 75, "=" * 75
    lines = [double, f" {'':16} PyTorch CUDA memory summary, device ID {device:<17d} ", rule,
             (f"  {'':9} CUDA OOMs: {stats['num_ooms']:<12d} | {'':6} cudaMalloc retries: "
              f"{stats['num_alloc_retries']:<8d}  "), double,
             "        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  "]
    for key, title, fmt in _POOLED:
        lines.append(rule)
        rows = [("all", title)]
        if not abbreviated:
            rows += [("large_pool", "      from large pool"), ("small_pool", "      from small pool")]
        pref = [stats[f"{key}.all.{f}"] for f in _FIELDS]   # units follow the "all" row
        for pool, name in rows:
            cells = [fmt(stats[f"{key}.{pool}.{f}"], p) for f, p in zip(_FIELDS, pref)]
            lines.append(f" {name:<21} | " + " | ".join(cells) + " ")
    for key, title in (("oversize_allocations", "Oversize allocations"),
                       ("oversize_segments", "Oversize GPU segments")):
        lines.append(rule)
        cells = [_count(stats[f"{key}.{f}"], stats[f"{key}.{f}"]) for f in _FIELDS]
        lines.append(f" {title:<21} | " + " | ".join(cells) + " ")
    lines.append(double)
    return "|" + "|\n|".join(lines) + "|\n"
