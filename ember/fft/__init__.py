"""ember.fft: torch.fft's discrete Fourier transforms.

The functions are the generated bindings of the aten ops `fft_fft`, `fft_rfft2`, ...
(declared with `python_module: fft` in schema/native_functions.yaml, as torch's are, so
`ember.fft.fft.__name__` is 'fft_fft' like torch's), which decompose into `_fft_r2c`,
`_fft_c2r` and `_fft_c2c` (kernels/composite/fft.py):

    >>> import ember
    >>> ember.fft.fft(ember.tensor([1.0, 2.0, 3.0, 4.0]))
    tensor([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])
"""
from ember._generated import functions as _f

fft = _f.fft_fft
fft2 = _f.fft_fft2
fftfreq = _f.fft_fftfreq
fftn = _f.fft_fftn
fftshift = _f.fft_fftshift
hfft = _f.fft_hfft
hfft2 = _f.fft_hfft2
hfftn = _f.fft_hfftn
ifft = _f.fft_ifft
ifft2 = _f.fft_ifft2
ifftn = _f.fft_ifftn
ifftshift = _f.fft_ifftshift
ihfft = _f.fft_ihfft
ihfft2 = _f.fft_ihfft2
ihfftn = _f.fft_ihfftn
irfft = _f.fft_irfft
irfft2 = _f.fft_irfft2
irfftn = _f.fft_irfftn
rfft = _f.fft_rfft
rfft2 = _f.fft_rfft2
rfftfreq = _f.fft_rfftfreq
rfftn = _f.fft_rfftn

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "hfft2", "hfftn", "ifft", "ifft2",
           "ifftn", "ifftshift", "ihfft", "ihfft2", "ihfftn", "irfft", "irfft2", "irfftn", "rfft",
           "rfft2", "rfftfreq", "rfftn"]
