"""Samples for torch.fft (ember.fft): the three aten transforms (_fft_r2c, _fft_c2r,
_fft_c2c) and the public fft_* functions, registered into `opinfo.OPS`. The schema test
compares values (within the FFT's accumulating tolerance), dtypes, shapes and strides
(torch's FFT writes a permuted layout, see kernels/meta/fft.py) with torch's.
"""
from __future__ import annotations

from opinfo import (
    ACCUMULATING_ULPS,
    C64,
    C128,
    F16,
    F32,
    F64,
    I64,
    OPS,
    E,
    S,
    expanded,
    make,
    out_of,
    own_maker,
    register,
    transposed,
)

_own = own_maker(22)   # samples from a generator of their own

_TOLS = {"tols": ACCUMULATING_ULPS}


def _real():
    return _own(make)((3, 4, 5), F32)


def _cplx(dtype=C64):
    return _own(make)((3, 4, 5), dtype)


# ---- the aten transforms --------------------------------------------------------------------
register("_fft_r2c.default", lambda: [
    S(_real(), [2], 0, True, name="last_onesided"), S(_real(), [0], 1, True, name="dim0_ortho"),
    S(_real(), [1], 2, False, name="dim1_full_by_n"),
    S(_own(make)((3, 4, 5), F64), [0, 2], 0, True, name="float64_2d"),
    S(_own(transposed)((3, 4, 5), F32), [1, 2], 0, True, name="transposed"),
    S(_own(make)((3, 4), I64), [1], 0, True, name="int64_error"),
    S(_own(make)((3, 4), F16), [1], 0, True, name="float16_error")], **_TOLS)
register("_fft_c2c.default", lambda: [
    S(_cplx(), [2], 0, True, name="last_forward"), S(_cplx(), [0], 2, False, name="dim0_inverse"),
    S(_cplx(C128), [0, 2], 1, True, name="complex128_2d_ortho"),
    S(_cplx(), [2, 0], 0, True, name="unsorted_dims"),
    S(_own(transposed)((3, 4, 5), C64), [1], 0, False, name="transposed"),
    S(_own(expanded)((3, 4), C64), [0], 0, True, name="expanded"),
    S(_real(), [1], 0, True, name="float32_error")], **_TOLS)
register("_fft_c2r.default", lambda: [
    S(_cplx(), [2], 0, 8, name="last"), S(_cplx(), [0], 2, 4, name="dim0_by_n"),
    S(_cplx(C128), [0, 2], 1, 9, name="complex128_2d_ortho"),
    S(_own(transposed)((3, 4, 5), C64), [1], 0, 6, name="transposed"),
    S(_real(), [1], 0, 6, name="float32_error")], **_TOLS)


# ---- the public functions -------------------------------------------------------------------
def _one_dim(real_only=False, complex_only=False):
    def samples():
        out = []
        if not complex_only:
            out += [S(_real(), name="float32"), S(_own(make)((3, 4, 5), F64), dim=0, name="float64_dim0"),
                    S(_own(make)((4, 6), I64), name="int64"), S(_real(), n=7, name="n_padded"),
                    S(_real(), n=2, dim=1, name="n_cropped"),
                    S(_own(transposed)((3, 4, 5), F32), name="transposed"),
                    S(_own(make)((3, 4), F16), name="float16_error")]
        if not real_only:
            out += [S(_cplx(), name="complex64"), S(_cplx(C128), dim=1, name="complex128_dim1")]
        out += [S(_real() if not complex_only else _cplx(), norm=m, name=m)
                for m in ("ortho", "forward", "backward")]
        out += [S(_real() if not complex_only else _cplx(), norm="bad", name="norm_error"),
                S(_real() if not complex_only else _cplx(), n=0, name="n_error"),
                S(_real() if not complex_only else _cplx(), dim=3, name="dim_error")]
        return out
    return samples


def _n_dim(two=False):
    def samples():
        out = [S(_real(), name="float32"), S(_cplx(), name="complex64"),
               S(_own(make)((4, 6), I64), name="int64"), S(_real(), s=(3, 8), name="s_padded"),
               S(_real(), s=(-1, 4), name="s_default_dim"),
               S(_real(), dim=(0, 2), name="dims"), S(_real(), dim=(2, 0), name="dims_reversed"),
               S(_real(), s=(2, 2), dim=(0, 1), name="s_and_dim"),
               S(_own(transposed)((3, 4, 5), F32), name="transposed"),
               S(_real(), norm="ortho", name="ortho"), S(_real(), norm="forward", name="forward"),
               S(_real(), dim=(0, 0), name="repeated_dim_error"),
               S(_real(), s=(2,), dim=(0, 1), name="s_dim_length_error")]
        if not two:
            out += [S(_real(), s=(2, 2, 2, 2), name="s_too_long_error"),
                    S(_cplx(C128), dim=(1,), name="complex128_one_dim")]
        return out
    return samples


_ONE_DIM = {"fft": {}, "ifft": {}, "rfft": {"real_only": True}, "irfft": {}, "hfft": {},
            "ihfft": {"real_only": True}}
def _no_dim_error(samples):
    """The out= variant's samples: torch checks out= before a bad dim (an IndexError then,
    its out= dtype RuntimeError first: not comparable)."""
    return lambda: [s for s in samples() if s.name != "dim_error"]


for _name, _kw in _ONE_DIM.items():
    register(f"fft_{_name}.default", _one_dim(**_kw), **_TOLS)
    out_of(f"fft_{_name}.out", f"fft_{_name}.default")
    OPS[f"fft_{_name}.out"].samples = _no_dim_error(_one_dim(**_kw))
for _name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
    register(f"fft_{_name}2.default", _n_dim(two=True), **_TOLS)
    out_of(f"fft_{_name}2.out", f"fft_{_name}2.default")
    register(f"fft_{_name}n.default", _n_dim(), **_TOLS)
    out_of(f"fft_{_name}n.out", f"fft_{_name}n.default")

for _name in ("fftfreq", "rfftfreq"):
    register(f"fft_{_name}.default", lambda: [
        S(5, name="odd"), S(4, 0.25, name="even_spacing"), S(1, name="one"), S(0, name="zero"),
        S(6, dtype=E.float64, name="float64"), S(3, 2.0, dtype=E.float16, name="float16"),
        S(4, dtype=E.int64, name="int64_error"), S(4, dtype=E.complex64, name="complex64_error"),
        S(-1, name="negative_error")], exact_strides=True)
for _name in ("fftshift", "ifftshift"):
    register(f"fft_{_name}.default", lambda: [
        S(_real(), name="all_dims"), S(_real(), dim=[0], name="dim0"),
        S(_cplx(), dim=[0, 2], name="complex_dims"), S(_own(make)((5,), I64), name="int64_1d"),
        S(_own(make)((), F32), name="0d")])


def _signal(shape=(2, 40)):
    return _own(make)(shape, F32)


def _stft_samples(center):
    def samples():
        c = {"center": False} if center else {}
        return [S(_signal(), 8, return_complex=True, **c, name="batch"),
                S(_signal((40,)), 8, 3, return_complex=True, **c, name="1d_hop3"),
                S(_signal(), 8, None, 6, _own(make)((6,), F32, low=0, high=1), return_complex=True,
                  **c, name="short_window"),
                S(_signal(), 8, normalized=True, onesided=False, return_complex=True, **c,
                  name="normalized_twosided"),
                S(_own(make)((2, 40), C64), 8, return_complex=True, **c, name="complex"),
                S(_signal(), 8, return_complex=False, **c, name="real_output"),
                S(_signal(), 8, **c, name="return_complex_error"),
                S(_signal(), 80, return_complex=True, **c, name="n_fft_error"),
                S(_signal(), 8, 0, return_complex=True, **c, name="hop_error"),
                S(_signal(), 8, None, 9, return_complex=True, **c, name="win_length_error"),
                S(_own(make)((2, 2, 20), F32), 8, return_complex=True, **c, name="3d_error"),
                S(_own(make)((20,), I64), 8, return_complex=True, **c, name="int64_error")]
    return samples


def _istft_samples():
    """(data_dependent: istft checks the window envelope's values, so Meta raises.)"""
    spec = _own(make)((5, 11), C64)
    return [S(spec, 8, data_dependent=True, name="onesided"), S(spec, 8, length=30, data_dependent=True, name="length_padded"),
            S(spec, 8, length=12, data_dependent=True, name="length_cropped"),
            S(_own(make)((2, 5, 11), C64), 8, center=False, data_dependent=True, name="batch_not_centered"),
            S(spec, 8, 2, 6, _own(make)((6,), F32, low=0.5, high=1), data_dependent=True, name="short_window"),
            S(_own(make)((8, 11), C64), 8, onesided=False, return_complex=True, data_dependent=True, name="complex"),
            S(_own(make)((5, 11), F32), 8, data_dependent=True, name="real_error"),
            S(spec, 8, onesided=False, data_dependent=True, name="onesided_error"),
            S(spec, 8, window=_own(make)((8,), F32, low=0, high=0.001) * 0, data_dependent=True, name="zero_window_error")]


register("stft.center", _stft_samples(True), **_TOLS)
register("stft.default", _stft_samples(False), **_TOLS)
register("istft.default", _istft_samples, **_TOLS)


def grad_extra() -> dict:
    """Gradient samples of the transforms: complex128 leaves for c2c and c2r."""
    z = _own(make)((3, 4), C128)
    x = _own(make)((3, 4), F64)
    return {
        "_fft_r2c.default": [S(x, [1], 0, True, name="onesided"),
                             S(x, [0, 1], 1, False, name="full_2d_ortho"),
                             S(_own(make)((3, 5), F64), [1], 2, True, name="odd_by_n")],
        "_fft_c2c.default": [S(z, [1], 0, True, name="complex128"),
                             S(z, [0, 1], 2, False, name="complex128_2d_inverse")],
        "_fft_c2r.default": [S(z, [1], 0, 6, name="even"), S(z, [1], 1, 7, name="odd"),
                             S(z, [0, 1], 2, 6, name="2d")],
    }
