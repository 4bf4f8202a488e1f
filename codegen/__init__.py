"""ember's code generator: schema/*.yaml + templates/*.j2 -> generated/*.py.

    python -m codegen            # regenerate generated/
    python -m codegen --check    # exit 1 if generated/ is not current

Layers: `model` (frozen dataclasses, lossless schema parsing), `loader` (YAML with
line marks), `validate` (file:line errors), `api` (naming and Python signatures),
`render` (Jinja2 with StrictUndefined). This package must not import `ember`.
"""
