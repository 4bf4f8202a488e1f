"""`ember.cuda.amp`: torch's deprecated spellings of `ember.amp.autocast("cuda")` and
`ember.amp.GradScaler("cuda")`, with torch's deprecation warnings.

>>> import warnings, ember
>>> with warnings.catch_warnings(record=True):
...     warnings.simplefilter("always")
...     ember.cuda.amp.GradScaler().is_enabled()
False
"""
import warnings

from ember import amp as _amp


def _deprecated(name: str) -> None:
    warnings.warn(f"`ember.cuda.amp.{name}(args...)` is deprecated. "
                  f"Please use `ember.amp.{name}('cuda', args...)` instead.",
                  FutureWarning, stacklevel=3)


class autocast(_amp.autocast):
    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True):
        _deprecated("autocast")
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True):
        _deprecated("GradScaler")
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)
