"""Passes over FX graphs: shape_prop (tensor metadata), graph_drawer (pictures),
split_module (partitions as submodules)."""
from . import graph_drawer, shape_prop, split_module  # noqa: F401
