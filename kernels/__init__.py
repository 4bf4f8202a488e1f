"""ember's kernels, one folder per backend. Conventions every kernel follows:

* A kernel named in `schema/native_functions.yaml` under `dispatch:` is a top-level
  function in a module of the key's folder (found by codegen with `ast`):
  CPU -> kernels/cpu, Meta -> kernels/meta, CUDA -> kernels/cuda,
  CompositeExplicitAutograd -> kernels/common (device-generic: views, *_like),
  CompositeImplicitAutograd -> kernels/composite (decompositions into other ember ops).
  Modules whose name starts with `_` are helpers, never kernels.
* It receives every schema argument positionally, in schema order, keyword-only ones
  included (`add(self, other, alpha)`). Non-first Tensor arguments of ops tagged
  `pointwise` may also be Python numbers (torch's wrapped numbers).
* Tensors: `t._np` is the ready NumPy view (CPU), `t._shape`, `t.stride()`, `t._offset`,
  `t._dtype` (ember dtype; `.np` is its NumPy dtype), `t._device`.
* Results: `ember.core.tensor.from_array(arr, dtype)` wraps a fresh NumPy array the
  kernel owns (never a view of an input); views use `make_view(base, shape, stride,
  offset)`; `ember.core.alloc.empty_cpu/empty_meta/empty_strided_on` allocate a layout.
  In-place and out kernels write into `self._np` / `out._np` and return that tensor
  (version counters are bumped by the ADInplaceOrView kernel, not here).
* Meta kernels compute the same shape, dtype and strides as the CPU kernel and allocate
  with `empty_meta`; they read only metadata, so a CPU kernel may call a Meta kernel to
  learn its output layout.
* Errors use torch's exception types and messages.
"""
import warnings

# torch computes IEEE results (inf, nan, wrapped casts) without a word; NumPy reports the
# same floating-point events as RuntimeWarnings, attributed to the module that called it.
# Silence them for ember's modules only, once, rather than paying for np.errstate on every
# call. (A filter a program installs later, e.g. `simplefilter("error")`, comes first.)
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"ember\.")

