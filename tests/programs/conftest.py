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
