"""Each test starts from seeded global generators (tests/conftest.py's autouse fixture), so
no test's random draws depend on which tests ran before it."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("draws_before", [0, 1], ids=["first", "after_draws"])
def test_global_generators_start_seeded(draws_before):
    first = (ember.rand(3).tolist(), np.random.rand(3).tolist(), torch.rand(3).tolist())
    ember.manual_seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    assert first == (ember.rand(3).tolist(), np.random.rand(3).tolist(), torch.rand(3).tolist())
    for _ in range(draws_before):  # leaves the generators moved on for the next test
        ember.rand(5), np.random.rand(5), torch.rand(5)
