"""Samples for the conv op family (issue 4), registered into `opinfo.OPS`.

opinfo.py imports this module at its end; `grad_extra()` adds gradient samples to
tests/autograd/grad_samples.py's EXTRA (called with opinfo's random generator seeded).
"""
from __future__ import annotations

import numpy as np
from helpers import ACCUMULATING_ULPS
from opinfo import (
    ALL,
    BF16,
    BOOL,
    F16,
    F32,
    F64,
    I32,
    I64,
    U8,
    S,
    View,
    dtname,
    make,
    offset,
    out_of,
    own_rng,
    register,
    strided,
    transposed,
)


def grad_extra() -> dict:
    """{overload name: [SampleInput, ...]} added to the gradient samples."""
    out = {}
    for part in (_conv_grad_samples, _pool_grad_samples):
        out.update(part())
    return out


# ---------------------------------------------------------------- convolution
def _cl(shape, dt=F32, **kw):
    """A channels_last (NHWC in memory) input of NCHW `shape`."""
    n, c, h, w = shape
    return View(make((n, h, w, c), dt, **kw), "permute.default", ([0, 3, 1, 2],))


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
        _conv(_cl((2, 3, 5, 6)), make((4, 3, 3, 3), F32), make((4,), F32), 1, 1,
              name="channels_last_input"),
        _conv(make((2, 3, 5, 6), F64), _cl((4, 3, 3, 3), F64), None, 2, name="channels_last_weight"),
        _conv(_cl((2, 4, 5, 4)), make((4, 3, 3, 2), F32), make((6,), F32), [2, 3], [1, 0],
              1, True, [1, 2], 2, name="channels_last_transposed"),
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


register("convolution.default", _conv_samples, tols=ACCUMULATING_ULPS)
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
        _conv_bw(make((2, 4, 3, 3), F32), _cl((2, 3, 5, 5)), make((4, 3, 3, 3), F32), [4],
                 [1, 1], [0, 0], [1, 1], False, [0, 0], 1, name="channels_last_input"),
        _conv_bw(_cl((2, 4, 3, 3)), make((2, 3, 5, 5), F32), make((4, 3, 3, 3), F32), [4],
                 [1, 1], [0, 0], [1, 1], False, [0, 0], 1, name="channels_last_grad"),
        _conv_bw(make((0, 4, 3, 3), F32), make((0, 3, 5, 5), F32), make((4, 3, 3, 3), F32), [4],
                 [1, 1], [0, 0], [1, 1], False, [0, 0], 1, name="empty_batch"),
        _conv_bw(make((2, 4, 3, 3), F32), make((2, 3, 5, 5), F32), make((4, 3, 3, 3), F32), [4],
                 [1, 1], [0, 0], [1, 1], False, [0, 0], 1, name="bool_error"),
    ]
    out[-1] = _conv_bw(make((2, 4, 3, 3), BOOL), make((2, 3, 5, 5), BOOL),
                       make((4, 3, 3, 3), BOOL), [4], [1, 1], [0, 0], [1, 1], False, [0, 0], 1,
                       name="bool_error")
    return out


register("convolution_backward.default", _conv_backward_samples, tols=ACCUMULATING_ULPS)


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


register("conv1d.default", _conv_nd_samples(1), tols=ACCUMULATING_ULPS, ref=_torch_fn("conv1d"))
register("conv2d.default", _conv_nd_samples(2), tols=ACCUMULATING_ULPS, ref=_torch_fn("conv2d"))
register("conv3d.default", _conv_nd_samples(3), tols=ACCUMULATING_ULPS, ref=_torch_fn("conv3d"))
register("conv3d.padding", _conv_padding_samples(3), tols=ACCUMULATING_ULPS,
         ref=_torch_fn("conv3d"))


def _conv_transpose_samples(nd):
    sp = (4,) * nd

    def samples():
        x, w, b = make((2, 4) + sp, F32), make((4, 3) + (3,) * nd, F32), make((6,), F32)
        return [
            S(x, w, name="no_bias"),
            S(x, w, b, 2, 1, 1, 2, 2, name="stride_pad_output_padding_groups_dilation"),
            S(x, w, b, [2] * nd, [0] * nd, [1] * nd, 2, name="lists"),
            S(make((4,) + sp, F64), make((4, 2) + (2,) * nd, F64), make((2,), F64), 2,
              name="unbatched"),
            S(make((4,) * nd, F32), w, name="rank_error"),
            S(x, w, None, 1, 0, 1, name="output_padding_error"),
        ]
    return samples


for _nd, _name in ((1, "conv_transpose1d.default"), (2, "conv_transpose2d.input"),
                   (3, "conv_transpose3d.input")):
    register(_name, _conv_transpose_samples(_nd), tols=ACCUMULATING_ULPS,
             ref=_torch_fn(_name.split(".")[0]))
register("conv1d.padding", _conv_padding_samples(1), tols=ACCUMULATING_ULPS,
         ref=_torch_fn("conv1d"))
register("conv2d.padding", _conv_padding_samples(2), tols=ACCUMULATING_ULPS,
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


# ---------------------------------------------------------------- pooling
def _ties(shape):
    """Small integers as floats: max pooling windows with ties."""
    return make(shape, F32, low=0, high=3).round()


def _max_pool_samples():
    x = make((2, 3, 7, 6), F32)
    out = [S(make((2, 3, 6, 6), dt), [2, 2], name=dtname(dt)) for dt in (F32, F64, F16, BF16, I64,
                                                                          I32, U8)]
    out += [
        S(x, [3, 3], [2, 2], [1, 1], [1, 1], True, name="ceil_mode_padding"),
        S(x, [2, 3], [], [1, 0], [2, 1], False, name="dilation_default_stride"),
        S(x, 3, 2, 1, 1, True, name="int_args"),
        S(x, [3, 2], [2, 1], [1, 1], [1, 2], True, name="ceil_dilation"),
        S(make((3, 5, 5), F64), [2, 2], [1, 1], name="unbatched"),
        S(make((0, 3, 5, 5), F32), [2, 2], name="empty_batch"),
        S(_ties((2, 2, 4, 4)), [2, 2], [1, 1], name="ties"),
        S(np.full((1, 1, 3, 3), -np.inf, np.float32), [3, 3], [2, 2], [1, 1], name="all_neg_inf"),
        S(np.array([[[[1, np.nan], [2, 3]]]], np.float32), [2, 2], name="nan"),
        S(transposed((2, 3, 6, 5), F32), [2, 2], name="transposed"),
        S(_cl((2, 3, 7, 6)), [3, 3], [2, 2], [1, 1], [1, 1], True, name="channels_last"),
        S(x, [2, 2], [2, 2], [2, 2], name="pad_too_big_error"),
        S(x, [2, 2], [0, 2], name="stride_0_error"),
        S(x, [2, 2], [], [0, 0], [0, 0], name="dilation_0_error"),
        S(x, [2, 2, 2], name="kernel_size_error"),
        S(make((6, 6), F32), [2, 2], name="2d_error"),
        S(x, [8, 8], name="output_too_small_error"),
        S(make((2, 3, 0, 6), F32), [2, 2], name="empty_spatial_error"),
        S(make((2, 3, 6, 6), BOOL), [2, 2], name="bool_error"),
    ]
    return out


register("max_pool2d_with_indices.default", _max_pool_samples)
register("max_pool2d.default", _max_pool_samples)


def _max_pool_backward_samples():
    import torch

    def case(x, args, name, grad_dtype=None):
        t = torch.ops.aten.max_pool2d_with_indices(torch.from_numpy(x.astype(np.float64)), *args)
        g = make(tuple(t[0].shape), grad_dtype or x.dtype)
        return S(g, x, *args, t[1].numpy(), name=name)
    x = make((2, 3, 7, 6), F32)
    full = ([2, 2], [2, 2], [0, 0], [1, 1], False)
    return [
        case(make((2, 3, 6, 6), F64), full, "float64"),
        case(make((2, 3, 6, 6), BF16), full, "bfloat16"),
        case(x, ([3, 3], [2, 2], [1, 1], [1, 1], True), "ceil_mode_padding"),
        case(x, ([3, 2], [1, 1], [1, 1], [1, 2], False), "overlapping"),
        case(_ties((2, 2, 4, 4)), ([2, 2], [1, 1], [0, 0], [1, 1], False), "ties"),
        case(make((3, 5, 5), F32), full, "unbatched"),
        case(make((2, 6, 7, 3), F32).transpose(0, 3, 1, 2), full, "channels_last"),
        case(x, full, "grad_dtype_error", F64),
        case(make((2, 3, 6, 6), I64), full, "int64_error"),
    ]


register("max_pool2d_with_indices_backward.default", _max_pool_backward_samples)


def _avg_pool_samples():
    x = make((2, 3, 7, 6), F32)
    out = [S(make((2, 3, 6, 6), dt), [2, 2], name=dtname(dt)) for dt in (F32, F64, F16, BF16, I64)]
    out += [
        S(x, [3, 3], [2, 2], [1, 1], True, True, name="ceil_include_pad"),
        S(x, [3, 3], [2, 2], [1, 1], True, False, name="ceil_exclude_pad"),
        S(x, [3, 2], [2, 1], [1, 1], False, False, 5, name="divisor_override"),
        S(x, 3, 2, 1, name="int_args"),
        S(make((3, 5, 5), F64), [2, 3], [1, 2], [1, 1], name="unbatched"),
        S(make((2, 3, 7, 6), I64), [3, 3], [2, 2], [1, 1], True, False, name="int64_exclude_pad"),
        S(make((0, 3, 5, 5), F32), [2, 2], name="empty_batch"),
        S(transposed((2, 3, 6, 5), F32), [2, 2], name="transposed"),
        S(_cl((2, 3, 7, 6)), [3, 3], [2, 2], [1, 1], True, False, name="channels_last"),
        S(make((2, 3, 6, 6), U8), [2, 2], name="uint8_error"),
        S(make((2, 3, 6, 6), I32), [2, 2], name="int32_error"),
        S(x, [2, 2], [2, 2], [2, 2], name="pad_too_big_error"),
        S(x, [2, 2], [0, 2], name="stride_0_error"),
        S(x, [3, 3], [2, 2], [1, 1], True, False, 0, name="divisor_0_error"),
        S(make((6, 6), F32), [2, 2], name="2d_error"),
        S(x, [8, 8], name="output_too_small_error"),
    ]
    return out


register("avg_pool2d.default", _avg_pool_samples, tols=ACCUMULATING_ULPS)
out_of("avg_pool2d.out", "avg_pool2d.default")


def _avg_pool_backward_samples():
    def case(x, args, name, grad_dtype=None, grad_shape=None):
        import torch
        t = torch.ops.aten.avg_pool2d(torch.from_numpy(x.astype(np.float64)), *args)
        g = make(grad_shape or tuple(t.shape), grad_dtype or x.dtype)
        return S(g, x, *args, name=name)
    x = make((2, 3, 7, 6), F32)
    return [
        case(make((2, 3, 6, 6), F64), ([2, 2], [2, 2], [0, 0], False, True, None), "float64"),
        case(make((2, 3, 6, 6), F16), ([2, 2], [2, 2], [0, 0], False, True, None), "float16"),
        case(x, ([3, 3], [2, 2], [1, 1], True, True, None), "ceil_include_pad"),
        case(x, ([3, 3], [2, 2], [1, 1], True, False, None), "ceil_exclude_pad"),
        case(x, ([3, 2], [1, 1], [1, 1], False, True, 5), "overlapping_divisor"),
        case(make((3, 5, 5), F32), ([2, 2], [1, 1], [0, 0], False, True, None), "unbatched"),
        case(make((2, 3, 6, 6), I64), ([2, 2], [1, 1], [1, 1], False, False, None), "int64"),
        case(x, ([2, 2], [2, 2], [0, 0], False, True, None), "grad_dtype_error", F64),
        case(x, ([2, 2], [2, 2], [0, 0], False, True, None), "grad_shape_error",
             grad_shape=(2, 3, 2, 2)),
    ]


register("avg_pool2d_backward.default", _avg_pool_backward_samples, tols=ACCUMULATING_ULPS)


def _adaptive_samples():
    x = make((2, 3, 7, 6), F32)
    out = [S(make((2, 3, 6, 6), dt), [4, 4], name=dtname(dt)) for dt in (F32, F64, F16, BF16)]
    out += [
        S(x, [3, 4], name="uneven"), S(x, [7, 6], name="identity"), S(x, [5, 9], name="upsample"),
        S(x, [1, 1], name="global"), S(x, [0, 2], name="empty_output"),
        S(make((3, 5, 5), F64), [2, 3], name="unbatched"),
        S(make((0, 3, 5, 5), F32), [2, 2], name="empty_batch"),
        S(transposed((2, 3, 6, 5), F32), [2, 2], name="transposed"),
        S(_cl((2, 3, 7, 6)), [3, 4], name="channels_last"),
        S(make((2, 3, 6, 8), F32), [3, 2], name="even_windows"),
        S(_cl((2, 3, 4, 6)), [2, 3], name="even_windows_channels_last"),
        S(make((2, 3, 6, 6), I64), [2, 2], name="int64_error"),
        S(x, [4], name="output_size_error"),
        S(make((6, 6), F32), [2, 2], name="2d_error"),
        S(make((2, 3, 0, 6), F32), [2, 2], name="empty_spatial_error"),
    ]
    return out


register("_adaptive_avg_pool2d.default", _adaptive_samples)
out_of("_adaptive_avg_pool2d.out", "_adaptive_avg_pool2d.default")
register("adaptive_avg_pool2d.default", lambda: _adaptive_samples() + [
    S(make((2, 3, 6, 6), F32), [-1, 2], name="negative_size_error")])


def _adaptive_backward_samples():
    x = make((2, 3, 7, 6), F32)
    return [
        S(make((2, 3, 3, 4), F32), x, name="uneven"),
        S(make((2, 3, 9, 8), F64), make((2, 3, 7, 6), F64), name="upsample"),
        S(make((3, 2, 2), BF16), make((3, 5, 5), BF16), name="unbatched_bfloat16"),
        S(make((2, 3, 1, 1), F16), make((2, 3, 6, 6), F16), name="global_float16"),
        S(make((2, 3, 3, 4), F32), _cl((2, 3, 7, 6)), name="channels_last"),
        S(make((2, 3, 3, 2), F32), make((2, 3, 6, 8), F32), name="even_windows"),
        S(make((2, 3, 2, 3), F64), _cl((2, 3, 4, 6), F64), name="even_windows_channels_last"),
        S(make((2, 3, 3, 4), F64), x, name="dtype_error"),
    ]


register("_adaptive_avg_pool2d_backward.default", _adaptive_backward_samples)
out_of("_adaptive_avg_pool2d_backward.out", "_adaptive_avg_pool2d_backward.default")


# ---------------------------------------------------------------- padding
def _constant_pad_samples():
    out = [S(make((2, 3), dt), [1, 2], name=dtname(dt)) for dt in ALL]
    out += [
        S(make((2, 3, 4), F32), [1, 0, 2, 1], 2.5, name="two_dims_value"),
        S(make((2, 3, 4), F32), [1, 1, 1, 1, 1, 1], name="all_dims"),
        S(make((2, 5), F32), [-1, 2], name="negative_crop"),
        S(make((2, 5), F32), [-1, -2], name="all_negative"),
        S(View(make((4, 3), F32, rng=own_rng()), "transpose.int", (0, 1)), [-1, 0, 0, -1],
          name="all_negative_transposed"),
        S(make((3, 4), F32, rng=own_rng()), [-4, 0], name="all_negative_to_empty"),
        S(View(make((4, 3), F32, rng=own_rng()), "transpose.int", (0, 1)), [0, 0],
          name="zero_pads_transposed"),
        S(make((3, 4), I64), [1, 1], 2.7, name="int_float_value"),
        S(make((3, 4), U8), [1, 1], -1, name="uint8_negative_value"),
        S(make((3, 4), BOOL), [1, 1], 2, name="bool_value"),
        S(make((), F32), [], name="0d"),
        S(make((0, 3), F32), [1, 1, 1, 1], name="empty"),
        S(transposed((3, 4), F32), [1, 2, 0, 1], name="transposed"),
        S(_cl((2, 3, 4, 5)), [1, 2, 0, 1], name="channels_last"),
        S(make((3, 4), F32), [1, 1, 1], name="odd_length_error"),
        S(make((3, 4), F32), [1] * 6, name="too_long_error"),
        S(make((3, 4), F32), [-3, -3], name="negative_size_error"),
        S(make((3, 4), F32), [-4, 1], name="crop_all_error"),
        S(make((3, 4), U8), [1, 1], 300, name="overflow_error"),
    ]
    return out


register("constant_pad_nd.default", _constant_pad_samples)
out_of("constant_pad_nd.out", "constant_pad_nd.default")


def _pad_samples():
    x3, x4 = make((2, 3, 5), F32), make((2, 3, 5, 4), F32)
    return [
        S(make((2, 3), F32), [1, 2], name="default_constant"),
        S(x4, [1, 0, 2, 1], "constant", 2.5, name="constant_value"),
        S(make((2, 3), I64), [1, 1], value=3.0, name="constant_int"),
        S(x3, [2, 3], "reflect", name="reflect_1d"),
        S(x4, [1, 2, 3, 0], "reflect", name="reflect_2d"),
        S(x3, [2, 3], "replicate", name="replicate_1d"),
        S(x4, [2, 1, 0, 3], "replicate", name="replicate_2d"),
        S(make((2, 2, 3, 3, 3), F32), [1, 1, 1, 0, 0, 2], "replicate", name="replicate_3d"),
        S(x3, [2, 3], "circular", name="circular_1d"),
        S(x4, [1, 2, 3, 1], "circular", name="circular_2d"),
        S(make((3, 5), F64), [2, -1], "reflect", name="reflect_negative"),
        S(transposed((3, 5, 4), F32), [1, 2], "replicate", name="transposed"),
        S(x4, [1, 1], "reflect", name="reflect_4d_pad2_error"),
        S(x3, [1, 1], "reflect", 2.0, name="reflect_value_error"),
        S(x3, [5, 1], "reflect", name="reflect_too_big_error"),
        S(x3, [1, 1], "wrap", name="unknown_mode_error"),
        S(x3, [1, 1, 1], name="odd_error"),
    ]


register("pad.default", _pad_samples)


# ---------------------------------------------------------------- embedding
def _idx(*v):
    return np.array(v, np.int64)


def _embedding_samples():
    w = make((5, 3), F32)
    out = [S(make((5, 3), dt), _idx(1, 2, 4, 0), name=dtname(dt)) for dt in ALL]
    out += [
        S(w, np.array([[1, 2], [4, 1]], np.int64), name="2d_indices"),
        S(w, np.array([[1, 2], [4, 0]], np.int32), name="int32_indices"),
        S(w, np.array(3, np.int64), name="0d_index"),
        S(w, _idx(), name="empty_indices"),
        # the "gradient" skips padding_idx and divides by counts: compared with torch only
        S(w, _idx(1, 2, 2), 2, True, name="nonsmooth_padding_idx_scale"),
        S(w, _idx(1, 2, 2), -1, True, name="nonsmooth_scale"),
        S(w, _idx(1, 2, 2), 2, name="nonsmooth_padding_idx"),
        S(transposed((5, 3), F32), _idx(0, 4), name="transposed_weight"),
        S(w, np.array([1.0], np.float32), name="float_indices_error"),
        S(w, _idx(5), name="out_of_range_error"),
        S(w, _idx(-1), name="negative_index_error"),
        S(make((5,), F32), _idx(1), name="1d_weight_error"),
    ]
    return out


register("embedding.default", _embedding_samples)
out_of("embedding.out", "embedding.default")


def _embedding_backward_samples():
    return [
        S(make((4, 3), F32), _idx(1, 2, 1, 0), 5, -1, False, name="float32"),
        S(make((2, 2, 3), F64), np.array([[1, 2], [1, 4]], np.int64), 5, 1, True,
          name="scale_padding"),
        S(make((2, 3), F16), np.array([3, 3], np.int32), 4, -1, True, name="float16_int32"),
        S(make((2, 3), BF16), _idx(0, 1), 2, 0, False, name="bfloat16_padding"),
        S(make((0, 3), F32), _idx(), 3, -1, False, name="empty"),
        S(make((2, 3), F32), np.array([1.0, 2.0], np.float32), 4, -1, False,
          name="float_indices_error"),
    ]


register("embedding_dense_backward.default", _embedding_backward_samples,
         tols=ACCUMULATING_ULPS)
out_of("embedding_dense_backward.out", "embedding_dense_backward.default")


def _one_hot_samples():
    return [
        S(_idx(1, 0, 3), name="infer", data_dependent=True),
        S(_idx(1, 0, 3), 5, name="num_classes"),
        S(np.array([[0, 2], [1, 1]], np.int64), name="2d", data_dependent=True),
        S(np.array(2, np.int64), 3, name="0d"),
        S(_idx(), 3, name="empty"),
        S(_idx(), name="empty_infer_error"),
        S(_idx(-1, 2), 4, name="negative_error"),
        S(_idx(1, 2), 2, name="too_small_error"),
        S(np.array([1, 2], np.int32), name="int32_error"),
    ]


register("one_hot.default", _one_hot_samples)


def _pool_grad_samples():
    import torch

    def mp_bw(x, args, name):
        t = torch.ops.aten.max_pool2d_with_indices(torch.from_numpy(x), *args)
        return S(make(tuple(t[0].shape), F64), x, *args, t[1].numpy(), name=name)
    x = make((1, 2, 3, 3), F64)
    x44 = make((1, 1, 4, 4), F64)
    return {
        "max_pool2d_with_indices.default": [
            S(x, [2, 2], [1, 1], name="small_overlapping"),
            S(x44, [3, 3], [2, 2], [1, 1], [1, 1], True, name="small_ceil_padding"),
            S(make((2, 4, 3), F64), [2, 2], [1, 2], [1, 1], [1, 2], True, name="small_unbatched"),
            S(_ties((1, 1, 3, 3)).astype(F64), [2, 2], [1, 1], name="nonsmooth_ties")],
        "max_pool2d_with_indices_backward.default": [
            mp_bw(x, ([2, 2], [1, 1], [0, 0], [1, 1], False), "small"),
            mp_bw(x44, ([3, 3], [2, 2], [1, 1], [1, 1], True), "small_ceil_padding")],
        "avg_pool2d.default": [
            S(x, [2, 2], [1, 1], name="small_overlapping"),
            S(x44, [3, 3], [2, 2], [1, 1], True, False, name="small_ceil_exclude_pad"),
            S(x44, [3, 2], [2, 1], [1, 1], True, True, 4, name="small_divisor")],
        "avg_pool2d_backward.default": [
            S(make((1, 2, 2, 2), F64), x, [2, 2], [1, 1], [0, 0], False, True, None,
              name="small"),
            S(make((1, 1, 2, 3), F64), x44, [3, 3], [2, 2], [1, 1], True, False, None,
              name="small_ceil_exclude_pad")],
        "_adaptive_avg_pool2d.default": [
            S(make((1, 2, 3, 4), F64), [2, 3], name="small_uneven"),
            S(make((2, 3, 4), F64), [3, 5], name="small_upsample_unbatched")],
        "_adaptive_avg_pool2d_backward.default": [
            S(make((1, 2, 2, 3), F64), make((1, 2, 3, 4), F64), name="small_uneven")],
        "constant_pad_nd.default": [
            S(make((2, 3), F64), [1, -1, 2, 0], 1.5, name="small_mixed")],
        "embedding.default": [
            S(make((5, 3), F64), np.array([[1, 2], [1, 4]], np.int64), 1, True,
              name="nonsmooth_small_padding_scale")],
        "embedding_dense_backward.default": [
            S(make((2, 2, 3), F64), np.array([[1, 2], [1, 1]], np.int64), 4, 2, True,
              name="small_scale_padding")],
    }
