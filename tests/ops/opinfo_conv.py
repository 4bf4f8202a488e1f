"""Samples for the conv op family (issue 4), registered into `opinfo.OPS`.

opinfo.py imports this module at its end; `grad_extra()` adds gradient samples to
tests/autograd/grad_samples.py's EXTRA (called with opinfo's random generator seeded).
"""
from __future__ import annotations

from opinfo import (  # noqa: F401
    ACCUMULATING_TOLS,
    ALL,
    BF16,
    BOOL,
    DEVICE,
    F16,
    F32,
    F64,
    FLOATS,
    I32,
    I64,
    NUMERIC,
    U8,
    E,
    S,
    View,
    binary_samples,
    dtname,
    expanded,
    inplace_binary_samples,
    make,
    offset,
    out_of,
    register,
    scalar_samples,
    strided,
    transposed,
    unary_samples,
)


def grad_extra() -> dict:
    """{overload name: [SampleInput, ...]} added to the gradient samples."""
    out = {}
    for part in (_conv_grad_samples,):
        out.update(part())
    return out


# ---------------------------------------------------------------- convolution
def _conv(x, w, b=None, stride=1, padding=0, dilation=1, transposed=False, output_padding=0,
          groups=1, *, name, nd=2):
    def lst(v):
        return [v] * nd if isinstance(v, int) else list(v)
    return S(x, w, b, lst(stride), lst(padding), lst(dilation), transposed, lst(output_padding),
             groups, name=name)


def _conv_samples():
    out = [_conv(make((2, 3, 5, 5), dt), make((4, 3, 3, 3), dt), make((4,), dt), name=dtname(dt))
           for dt in (F32, F64, F16, BF16, I64, I32, U8)]
    out += [
        _conv(make((2, 4, 7, 6), F32), make((6, 2, 3, 2), F32), make((6,), F32), [2, 1], [1, 2],
              [1, 2], groups=2, name="stride_pad_dilation_groups"),
        _conv(make((2, 3, 7), F32), make((4, 3, 3), F32), make((4,), F32), 2, 1, 2, nd=1,
              name="1d"),
        _conv(make((1, 2, 4, 4, 4), F64), make((3, 2, 2, 2, 2), F64), None, 1, 1, 1, nd=3,
              name="3d"),
        _conv(make((2, 4, 5, 4), F32), make((4, 3, 3, 2), F32), make((6,), F32), [2, 3], [1, 0],
              1, True, [1, 2], 2, name="transposed"),
        _conv(make((2, 4, 5), F64), make((4, 3, 3), F64), None, 2, 1, 2, True, 1, nd=1,
              name="transposed_1d"),
        S(make((2, 3, 6, 5), F32), make((4, 3, 3, 3), F32), None, [1], [1], [1], False, [0], 1,
          name="single_value_lists"),
        _conv(make((0, 3, 5, 5), F32), make((4, 3, 3, 3), F32), name="empty_batch"),
        _conv(transposed((2, 3, 5, 6), F32), strided((4, 3, 3, 3), F32), offset((4,), F32),
              name="noncontiguous"),
        _conv(make((2, 3, 5, 5), F32), make((4, 3, 3, 3), F64), name="dtype_mismatch_error"),
        _conv(make((2, 3, 5, 5), F32), make((4, 3, 3, 3), F32), make((4,), F64),
              name="bias_dtype_error"),
        _conv(make((2, 3, 5, 5), BOOL), make((4, 3, 3, 3), BOOL), name="bool_error"),
        _conv(make((2, 3, 5, 5), F32), make((4, 2, 3, 3), F32), name="channels_error"),
        _conv(make((2, 3, 5, 5), F32), make((4, 3, 3, 3), F32), groups=2, name="groups_error"),
        _conv(make((2, 3, 5, 5), F32), make((4, 3, 3, 3), F32), groups=0, name="groups_0_error"),
        _conv(make((2, 3, 5, 5), F32), make((4, 3, 7, 7), F32), name="kernel_too_big_error"),
        _conv(make((2, 3, 5, 5), F32), make((4, 3, 3, 3), F32), stride=0, name="stride_0_error"),
        _conv(make((2, 3, 5, 5), F32), make((4, 3, 3, 3), F32), padding=-1,
              name="negative_padding_error"),
        _conv(make((2, 3, 5, 5), F32), make((4, 3, 3, 3), F32), dilation=0,
              name="dilation_0_error"),
        _conv(make((2, 3, 5, 5), F32), make((4, 3, 3, 3), F32), make((3,), F32),
              name="bias_size_error"),
        _conv(make((3, 5, 5), F32), make((4, 3, 3, 3), F32), name="unbatched_error"),
        _conv(make((2, 3, 5, 5), F32), make((4, 3, 3), F32), name="stride_length_error"),
        _conv(make((2, 4, 5, 4), F32), make((4, 3, 3, 2), F32), None, 2, 1, 1, True, 2,
              name="output_padding_error"),
        _conv(make((2, 3, 5, 4), F32), make((4, 3, 3, 2), F32), None, 2, 1, 1, True, 0,
              name="transposed_channels_error"),
    ]
    return out


register("convolution.default", _conv_samples, tols=ACCUMULATING_TOLS)
out_of("convolution.out", "convolution.default")


def _conv_bw(go, x, w, bias_sizes, stride, padding, dilation, transposed, output_padding, groups,
             mask=(True, True, True), *, name):
    return S(go, x, w, bias_sizes, stride, padding, dilation, transposed, output_padding, groups,
             list(mask), name=name)


def _conv_backward_samples():
    out = [_conv_bw(make((2, 4, 3, 3), dt), make((2, 3, 5, 5), dt), make((4, 3, 3, 3), dt), [4],
                    [1, 1], [0, 0], [1, 1], False, [0, 0], 1, name=dtname(dt))
           for dt in (F32, F64, F16, BF16)]
    out += [
        _conv_bw(make((2, 6, 4, 6), F32), make((2, 4, 7, 6), F32), make((6, 2, 3, 2), F32), [6],
                 [2, 1], [1, 2], [1, 2], False, [0, 0], 2, name="stride_pad_dilation_groups"),
        _conv_bw(make((2, 4, 3), F64), make((2, 3, 7), F64), make((4, 3, 3), F64), None, [2],
                 [1], [2], False, [0], 1, name="1d"),
        _conv_bw(make((2, 6, 10, 11), F32), make((2, 4, 5, 4), F32), make((4, 3, 3, 2), F32),
                 [6], [2, 3], [1, 0], [1, 1], True, [1, 2], 2, name="transposed"),
        _conv_bw(make((0, 4, 3, 3), F32), make((0, 3, 5, 5), F32), make((4, 3, 3, 3), F32), [4],
                 [1, 1], [0, 0], [1, 1], False, [0, 0], 1, name="empty_batch"),
        _conv_bw(make((2, 4, 3, 3), F32), make((2, 3, 5, 5), F32), make((4, 3, 3, 3), F32), [4],
                 [1, 1], [0, 0], [1, 1], False, [0, 0], 1, name="bool_error"),
    ]
    out[-1] = _conv_bw(make((2, 4, 3, 3), BOOL), make((2, 3, 5, 5), BOOL),
                       make((4, 3, 3, 3), BOOL), [4], [1, 1], [0, 0], [1, 1], False, [0, 0], 1,
                       name="bool_error")
    return out


register("convolution_backward.default", _conv_backward_samples, tols=ACCUMULATING_TOLS)


def _conv_nd_samples(nd):
    sp = (6,) * nd

    def samples():
        x, w, b = make((2, 3) + sp, F32), make((4, 3) + (3,) * nd, F32), make((4,), F32)
        return [
            S(x, w, b, name="bias"), S(x, w, name="no_bias"),
            S(x, w, b, 2, 1, 2, name="int_args"),
            S(make((4,) + sp, F32), make((4, 2) + (2,) * nd, F32), None, [1] * nd, [1] * nd,
              [2] * nd, 2, name="groups_lists"),
            S(make((3,) + sp, F64), make((4, 3) + (3,) * nd, F64), make((4,), F64), padding=1,
              name="unbatched"),
            S(make((3,) * nd, F32), w, name="rank_error"),
            S(x, w, make((4,), F64), name="bias_dtype_error"),
        ]
    return samples


def _conv_padding_samples(nd):
    sp = (6,) * nd

    def samples():
        x, b = make((2, 3) + sp, F32), make((4,), F32)
        w3, w4 = make((4, 3) + (3,) * nd, F32), make((4, 3) + (4,) * nd, F32)
        return [
            S(x, w3, b, padding="same", name="same"),
            S(x, w4, b, padding="same", name="same_even_kernel"),
            S(x, w4, None, 1, "same", 3, name="same_even_kernel_odd_dilation"),
            S(x, w3, b, 1, "same", 2, name="same_dilation"),
            S(x, w3, b, 2, "valid", name="valid"),
            S(x, w3, b, name="default_valid"),
            S(make((3,) + sp, F64), make((4, 3) + (3,) * nd, F64), padding="same",
              name="unbatched"),
            S(x, w3, b, 2, "same", name="same_strided_error"),
            S(x, w3, b, 1, "full", name="invalid_string_error"),
        ]
    return samples


def _torch_fn(name):
    """torch's public function (it takes an int for an int[N] argument, torch.ops does not)."""
    def ref(*args, **kwargs):
        import torch
        return getattr(torch, name)(*args, **kwargs)
    return ref


register("conv1d.default", _conv_nd_samples(1), tols=ACCUMULATING_TOLS, ref=_torch_fn("conv1d"))
register("conv2d.default", _conv_nd_samples(2), tols=ACCUMULATING_TOLS, ref=_torch_fn("conv2d"))
register("conv1d.padding", _conv_padding_samples(1), tols=ACCUMULATING_TOLS,
         ref=_torch_fn("conv1d"))
register("conv2d.padding", _conv_padding_samples(2), tols=ACCUMULATING_TOLS,
         ref=_torch_fn("conv2d"))


def _conv_grad_samples():
    return {
        "convolution.default": [
            _conv(make((1, 2, 3, 3), F64), make((2, 2, 2, 2), F64), make((2,), F64),
                  name="small_bias"),
            _conv(make((1, 2, 4, 3), F64), make((2, 1, 2, 2), F64), None, [2, 1], 1, [1, 2],
                  groups=2, name="small_stride_pad_dilation_groups"),
            _conv(make((2, 2, 5), F32), make((3, 2, 2), F32), make((3,), F32), 2, 1, 1, nd=1,
                  name="small_1d"),
            _conv(make((1, 2, 3, 2), F64), make((2, 2, 2, 2), F64), make((4,), F64), [2, 1], 1,
                  1, True, [1, 0], 2, name="small_transposed"),
            _conv(make((1, 2, 4), F64), make((2, 2, 3), F64), None, 2, 1, 1, True, 1, nd=1,
                  name="small_transposed_1d"),
        ],
        "convolution_backward.default": [
            _conv_bw(make((1, 2, 2, 2), F64), make((1, 2, 3, 3), F64), make((2, 2, 2, 2), F64),
                     [2], [1, 1], [0, 0], [1, 1], False, [0, 0], 1, name="small"),
            _conv_bw(make((1, 2, 2, 3), F64), make((1, 2, 3, 3), F64), make((2, 1, 2, 2), F64),
                     None, [2, 1], [1, 0], [1, 1], False, [0, 0], 2, (True, True, False),
                     name="small_groups_no_bias"),
            _conv_bw(make((1, 2, 5), F64), make((1, 2, 3), F64), make((2, 1, 2), F64), [2], [2],
                     [1], [2], True, [1], 2, name="small_transposed_1d"),
        ],
    }
