"""ember's code generator: schema/*.yaml + templates/*.j2 -> generated/*.py.

    python -m codegen            # regenerate generated/
    python -m codegen --check    # exit 1 if generated/ is not current

Layers: `model` (frozen dataclasses, lossless schema parsing), `loader` (YAML with
line marks), `native` / `derivatives` / `autocast` (one schema file each, validated with
file:line errors; `kernel_index` finds the kernels `dispatch:` names), `api` (naming and
Python signatures), `render` (Jinja2 with StrictUndefined; `autograd_gen` supplies the
autograd code), `pipeline` (all of it, writing nothing) and `where` (a generated comment
back to its YAML line).
This package must not import `ember`.
"""
