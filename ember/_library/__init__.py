"""torch._library: custom ops (custom_ops.py) and opcheck (opcheck.py)."""
