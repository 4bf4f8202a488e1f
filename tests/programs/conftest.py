"""torch on one thread while these small programs run: its thread pool only adds
contention at these sizes (on a loaded 2-core machine, tenfold)."""
import pytest


@pytest.fixture(autouse=True, scope="package")
def _torch_one_thread():
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(autouse=True)
def _restore_backend_flags():
    """Programs set `torch.backends.cuda.matmul.allow_tf32` and cudnn's flag (nanoGPT's
    train.py does): put both libraries' flags back so later tests see the defaults."""
    import ember
    torch = pytest.importorskip("torch")
    saved = [(lib, lib.get_float32_matmul_precision(), lib.backends.cudnn.allow_tf32)
             for lib in (ember, torch)]
    yield
    for lib, precision, cudnn in saved:
        lib.set_float32_matmul_precision(precision)
        lib.backends.cudnn.allow_tf32 = cudnn
