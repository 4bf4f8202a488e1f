"""Being here, this file has pytest put tests/ on sys.path, so that test modules in any
folder below can `from helpers import ...` (tests/ has no __init__.py files: the tests
under tests/codegen import the top-level `codegen` package)."""
