"""torch.fft's functions (ember.fft) over the three FFT ops, as ATen's SpectralOps.cpp:
argument checks, dtype promotion, resizing of the input to the requested lengths, and
the `norm` modes ("backward", "forward", "ortho") as the ops' normalization.

    >>> x = ember.tensor([1.0, 2.0, 3.0, 4.0])
    >>> ember.fft.rfft(x)
    tensor([10.+0.j, -2.+2.j, -2.+0.j])
    >>> ember.fft.irfft(ember.fft.rfft(x))
    tensor([1., 2., 3., 4.])
"""
from __future__ import annotations

import warnings

import ember
from ember.core import dtype as D
from ember.kernels.meta.fft import wrap_dims, wrap_fft_dim

_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2


def _aten():
    return ember.ops.aten


def _norm(norm, forward) -> int:
    """torch's norm_from_string: the normalization of a forward or inverse transform."""
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _promote(x, require_complex=False):
    """Integral inputs become the default float dtype; only float/double (and their complex
    types) are supported on the CPU."""
    dt = x._dtype
    if not dt.is_complex:
        if dt.category != D.FLOAT:
            dt = D.get_default_dtype()
        if dt not in (D.float32, D.float64):
            raise RuntimeError(f"Unsupported dtype {dt.scalar_name}")
        if require_complex:
            dt = dt.to_complex()
    return x if dt is x._dtype else x.to(dt)


def _check_n(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _resize(x, dims, sizes):
    """Slices or zero-pads x along `dims` to `sizes` (-1 keeps a dim's size)."""
    pad = [0] * (2 * x.dim())
    for d, n in zip(dims, sizes):
        have = x.shape[d]
        if n == -1 or n == have:
            continue
        if have > n:
            x = x.narrow(d, 0, n)
        else:
            pad[2 * (x.dim() - 1 - d) + 1] = n - have
    return ember.constant_pad_nd(x, pad, 0) if any(pad) else x


# --- one-dim transforms ------------------------------------------------------------
def _c2c(name, x, n, dim, norm, forward):
    if not x.is_complex():
        raise RuntimeError(f"{name} expects a complex input tensor, but got "
                           f"{x._dtype.scalar_name}")
    d = wrap_fft_dim(dim, x.dim())
    n = x.shape[d] if n is None else n
    _check_n(n)
    x = _resize(x, [d], [n])
    return _aten()._fft_c2c.default(x, [d], _norm(norm, forward), forward)


def _r2c(name, x, n, dim, norm, forward, onesided):
    if x.is_complex():
        raise RuntimeError(f"{name} expects a real input tensor, but got {x._dtype.scalar_name}")
    x = _promote(x)
    d = wrap_fft_dim(dim, x.dim())
    n = x.shape[d] if n is None else n
    _check_n(n)
    x = _resize(x, [d], [n])
    r = _aten()._fft_r2c.default(x, [d], _norm(norm, forward), onesided)
    return r if forward else r.conj()


def _c2r(name, x, n, dim, norm, forward):
    x = _promote(x, require_complex=True)
    d = wrap_fft_dim(dim, x.dim())
    last = 2 * (x.shape[d] - 1) if n is None else n
    _check_n(last)
    if n is not None:
        x = _resize(x, [d], [last // 2 + 1])
    if forward:
        x = x.conj()
    return _aten()._fft_c2r.default(x, [d], _norm(norm, forward), last)


def fft_fft(self, n, dim, norm):
    if self.is_complex():
        return _c2c("fft", self, n, dim, norm, True)
    return _r2c("fft", self, n, dim, norm, True, False)


def fft_ifft(self, n, dim, norm):
    if self.is_complex():
        return _c2c("ifft", self, n, dim, norm, False)
    return _r2c("ifft", self, n, dim, norm, False, False)


def fft_rfft(self, n, dim, norm):
    return _r2c("rfft", self, n, dim, norm, True, True)


def fft_irfft(self, n, dim, norm):
    return _c2r("irfft", self, n, dim, norm, False)


def fft_hfft(self, n, dim, norm):
    return _c2r("hfft", self, n, dim, norm, True)


def fft_ihfft(self, n, dim, norm):
    return _r2c("ihfft", self, n, dim, norm, False, True)


# --- n-dim transforms ----------------------------------------------------------------
def _shape_and_dims(x, s, dim):
    """torch's canonicalize_fft_shape_and_dim_args: the transformed dims and their lengths."""
    ndim = x.dim()
    dims = None if dim is None else wrap_dims(dim, ndim)
    if s is not None:
        s = list(s)
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                               f"{ndim} dimensions.")
        if dims is None:
            dims = list(range(ndim - len(s), ndim))
        shape = [x.shape[d] if n == -1 else n for d, n in zip(dims, s)]
    else:
        dims = list(range(ndim)) if dims is None else dims
        shape = [x.shape[d] for d in dims]
    for n in shape:
        _check_n(n)
    return shape, dims


def _c2r_shape_and_dims(name, x, s, dim):
    """The shape and dims of an n-dim c2r, and the output length of its last dim."""
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError(f"{name} must transform at least one axis")
    last = 2 * (x.shape[dims[-1]] - 1) if s is None or list(s)[-1] == -1 else shape[-1]
    _check_n(last)
    shape[-1] = last // 2 + 1
    return shape, dims, last


def _fftn(x, s, dim, norm, forward):
    shape, dims = _shape_and_dims(x, s, dim)
    x = _promote(x, require_complex=True)
    x = _resize(x, dims, shape)
    return _aten()._fft_c2c.default(x, dims, _norm(norm, forward), forward)


def fft_fftn(self, s, dim, norm):
    return _fftn(self, s, dim, norm, True)


def fft_ifftn(self, s, dim, norm):
    return _fftn(self, s, dim, norm, False)


def fft_rfftn(self, s, dim, norm):
    if self.is_complex():
        raise RuntimeError("rfftn expects a real-valued input tensor, but got "
                           f"{self._dtype.scalar_name}")
    shape, dims = _shape_and_dims(self, s, dim)
    if not shape:
        raise RuntimeError("rfftn must transform at least one axis")
    x = _resize(_promote(self), dims, shape)
    return _aten()._fft_r2c.default(x, dims, _norm(norm, True), True)


def fft_irfftn(self, s, dim, norm):
    shape, dims, last = _c2r_shape_and_dims("irfftn", self, s, dim)
    x = _resize(_promote(self, require_complex=True), dims, shape)
    return _aten()._fft_c2r.default(x, dims, _norm(norm, False), last)


def fft_hfftn(self, s, dim, norm):
    shape, dims, last = _c2r_shape_and_dims("hfftn", self, s, dim)
    x = _resize(_promote(self, require_complex=True), dims, shape)
    mode = _norm(norm, True)
    if len(dims) > 1:
        x = _aten()._fft_c2c.default(x, dims[:-1], mode, True)
    return _aten()._fft_c2r.default(x.conj(), dims[-1:], mode, last)


def fft_ihfftn(self, s, dim, norm):
    shape, dims = _shape_and_dims(self, s, dim)
    if not shape:
        raise RuntimeError("ihfftn must transform at least one axis")
    x = _resize(_promote(self), dims, shape)
    mode = _norm(norm, False)
    r = _aten()._fft_r2c.default(x, dims[-1:], mode, True).conj()
    if len(dims) == 1:
        return r
    return _aten()._fft_c2c.default(r, dims[:-1], mode, False)


def fft_fft2(self, s, dim, norm):
    return fft_fftn(self, s, dim, norm)


def fft_ifft2(self, s, dim, norm):
    return fft_ifftn(self, s, dim, norm)


def fft_rfft2(self, s, dim, norm):
    return fft_rfftn(self, s, dim, norm)


def fft_irfft2(self, s, dim, norm):
    return fft_irfftn(self, s, dim, norm)


def fft_hfft2(self, s, dim, norm):
    return fft_hfftn(self, s, dim, norm)


def fft_ihfft2(self, s, dim, norm):
    return fft_ihfftn(self, s, dim, norm)


# --- shifts ----------------------------------------------------------------------------
def _shift(x, dim, half):
    dims = list(range(x.dim())) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    return ember.roll(x, [half(x.shape[d]) for d in dims], dims)


def fft_fftshift(self, dim):
    """The zero frequency moved to the centre: a roll by n // 2 along `dim` (all dims)."""
    return _shift(self, dim, lambda n: n // 2)


def fft_ifftshift(self, dim):
    """fftshift's inverse: a roll by (n + 1) // 2."""
    return _shift(self, dim, lambda n: (n + 1) // 2)


# --- short-time Fourier transforms -------------------------------------------------------
def _stft_call(self, n_fft, hop, win, window, normalized, onesided, return_complex, align):
    """The call as torch's stft errors print it (`ember.FloatTensor[20], n_fft=8, ...`)."""
    w = "None" if window is None else \
        f"ember.{window._dtype.scalar_name}Tensor{{{list(window.shape)}}}"
    opt = (lambda v: "None" if v is None else int(v))
    return (f"stft(ember.{self._dtype.scalar_name}Tensor{list(self.shape)}, n_fft={n_fft}, "
            f"hop_length={hop}, win_length={win}, window={w}, normalized={int(normalized)}, "
            f"onesided={opt(onesided)}, return_complex={opt(return_complex)}, "
            f"align_to_window={opt(align)}) : ")


def _padded_window(window, win_length, n_fft, like):
    """The window (ones by default) centred in n_fft points with zeros on both sides."""
    if window is None:
        window = ember.ones(win_length, dtype=like.dtype.to_real(), device=like.device)
    left = (n_fft - win_length) // 2
    if left or win_length != n_fft:
        window = ember.constant_pad_nd(window, [left, n_fft - win_length - left], 0)
    return window


def stft(self, n_fft, hop_length, win_length, window, normalized, onesided, return_complex,
         align_to_window):
    """Fourier transforms of windowed frames, hop_length apart: (batch?, freq, frames)."""
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    wants_complex = self.is_complex() or (window is not None and window.is_complex())
    if return_complex is None and not wants_complex:
        raise RuntimeError("stft requires the return_complex parameter be given for real "
                           "inputs, and will further require that return_complex=True in a "
                           "future PyTorch release.")
    if return_complex is False:
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch "
                      "release, stft will return complex tensors for all inputs, and "
                      "return_complex=False will raise an error.\nNote: you can still call "
                      "ember.view_as_real on the complex output to recover the old return "
                      "format.", UserWarning, stacklevel=3)
    call = _stft_call(self, n_fft, hop, win, window, normalized, onesided, return_complex,
                      align_to_window)
    if self._dtype.category < D.FLOAT:
        raise RuntimeError(call + "expected a tensor of floating point or complex values")
    if self.dim() not in (1, 2):
        raise RuntimeError(call + "expected a 1D or 2D tensor")
    x = self.unsqueeze(0) if self.dim() == 1 else self
    length = x.shape[1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(call + f"expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(call + f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(call + f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(call + f"expected a 1D window tensor of size equal to win_length="
                           f"{win}, but got window with size {list(window.shape)}")
    if align_to_window:
        raise NotImplementedError("ember's stft does not implement align_to_window=True")
    frames = x.unfold(1, n_fft, hop)                       # (batch, n_frames, n_fft)
    if window is not None or win < n_fft:
        frames = frames * _padded_window(window, win, n_fft, x)
    complex_fft = frames.is_complex()
    one = (not complex_fft) if onesided is None else onesided
    mode = _BY_ROOT_N if normalized else _NONE
    if complex_fft:
        if one:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = _aten()._fft_c2c.default(frames, [2], mode, True)
    else:
        out = _aten()._fft_r2c.default(frames, [2], mode, one)
    out = out.transpose(1, 2)
    if self.dim() == 1:
        out = out.squeeze(0)
    return out if (return_complex or return_complex is None) else ember.view_as_real(out)


def stft_center(self, n_fft, hop_length, win_length, window, center, pad_mode, normalized,
                onesided, return_complex, align_to_window):
    """stft with the signal padded by n_fft // 2 on both sides first (`center`)."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false.")
    x = self
    if center:
        extra = max(3, x.dim()) - x.dim()
        x = ember.nn.functional.pad(x.view([1] * extra + list(x.shape)), [n_fft // 2] * 2,
                                    pad_mode)
        x = x.view(x.shape[extra:])
    return stft(x, n_fft, hop_length, win_length, window, normalized, onesided,
                return_complex, align_to_window)


def _overlap_add(frames, hop, total):
    """Sums (channel, n_frames, n_fft) frames placed hop apart into (channel, total)."""
    n_frames, n_fft = frames.shape[1], frames.shape[2]
    idx = (ember.arange(n_frames, device=frames.device).view(-1, 1) * hop
           + ember.arange(n_fft, device=frames.device).view(1, -1)).reshape(-1)
    out = ember.zeros(frames.shape[0], total, dtype=frames.dtype, device=frames.device)
    return out.index_add(1, idx, frames.reshape(frames.shape[0], -1))


def istft(self, n_fft, hop_length, win_length, window, center, normalized, onesided, length,
          return_complex):
    """The inverse of stft: inverse transforms of the frames, windowed, overlap-added and
    divided by the summed squared window (torch's checks)."""
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if not self.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    x = self.resolve_conj()
    if x.numel() == 0:
        raise RuntimeError("istft input tensor cannot be empty")
    if x.dim() not in (2, 3):
        raise RuntimeError(f"expected a tensor with 3 or 4 dimensions of complex, but got "
                           f"{x.dim() + 1}")
    fft_size, n_frames = x.shape[-2], x.shape[-1]
    one = fft_size != n_fft if onesided is None else onesided
    expected = n_fft // 2 + 1 if one else n_fft
    if fft_size != expected:
        raise RuntimeError("expected the frequency dimension (3rd to the last) of the input "
                           f"tensor to match {'n_fft / 2 + 1' if one else 'n_fft'} when "
                           f"onesided={one}, but got {fft_size}")
    if not 0 < hop <= win:
        raise RuntimeError("expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError("expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError("Invalid window shape. window has to be 1D and length of "
                           "`win_length`")
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied.Please "
                      "provide the same window used by stft to make the inversion lossless.To "
                      "suppress this warning and use a rectangular window, explicitly set "
                      "`window=ember.ones(n_fft, device=<device>)`.", UserWarning, stacklevel=3)
    w = _padded_window(window, win, n_fft, x)
    frames = (x.unsqueeze(0) if x.dim() == 2 else x).transpose(1, 2)   # (ch, frames, freq)
    mode = _BY_ROOT_N if normalized else _BY_N
    if return_complex:
        if one:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = _aten()._fft_c2c.default(frames, [2], mode, False)
    else:
        if window is not None and window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not one:
            frames = frames.narrow(-1, 0, n_fft // 2 + 1)
        frames = _aten()._fft_c2r.default(frames, [2], mode, n_fft)
    total = n_fft + hop * (n_frames - 1)
    y = _overlap_add(frames * w, hop, total)
    envelope = _overlap_add((w * w).expand(1, n_frames, n_fft), hop, total)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (total - n_fft // 2 if center else total)
    y, envelope = y[:, start:min(end, total)], envelope[:, start:min(end, total)]
    if envelope.device.type == "meta":
        raise NotImplementedError("ember.istft cannot run on Meta tensors: its window "
                                  "overlap-add check reads the data (as torch's)")
    if bool(envelope.abs().min() < 1e-11):
        raise RuntimeError("window overlap add min: 1")
    y = y / envelope
    if x.dim() == 2:
        y = y.squeeze(0)
    if end > total:
        warnings.warn("The length of signal is shorter than the length parameter. Result is "
                      "being padded with zeros in the tail. Please check your center and "
                      "hop_length settings.", UserWarning, stacklevel=2)
        y = ember.constant_pad_nd(y, [0, end - total], 0)
    return y
