"""Every compile test starts and ends with ember._dynamo's caches and counters empty."""
import pytest

import ember


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    ember._dynamo.reset()
    yield
    ember._dynamo.reset()
