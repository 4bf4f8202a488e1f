"""Builds the optional C helpers (ember/_speedups*.c); everything else is in pyproject.toml.
Without a C compiler the build skips the extension and ember runs its pure-Python twins."""
from setuptools import Extension, setup

SOURCES = ["_speedups.c", "_speedups_gemm.c", "_speedups_record.c", "_speedups_fma.c"]
setup(ext_modules=[Extension("ember._speedups", [f"ember/{s}" for s in SOURCES],
                             depends=["ember/_speedups.h"], optional=True)])
