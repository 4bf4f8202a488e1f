"""Builds the optional C helpers (ember/_speedups*.c); everything else is in pyproject.toml.
Without a C compiler the build skips the extension and ember runs its pure-Python twins."""
from setuptools import Extension, setup

setup(ext_modules=[Extension(
    "ember._speedups", ["ember/_speedups.c", "ember/_speedups_gemm.c", "ember/_speedups_record.c"],
    depends=["ember/_speedups.h"], optional=True)])
