"""ember._dynamo.utils.counters (torch's): frames captured, graph breaks by reason,
recompiles, calls."""
from collections import Counter, defaultdict

counters: defaultdict = defaultdict(Counter)
