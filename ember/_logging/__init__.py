"""ember._logging (torch._logging's place): what ember.compile prints, by artifact.

Set `EMBER_LOGS` to a comma-separated list of artifacts before the run
(`EMBER_LOGS=recompiles,graph_breaks python train.py`), or call `set_logs(...)`:

- `recompiles`: each recompile and the guard that failed;
- `graph_breaks`: each graph break and its reason;
- `guards`: the guards of each new graph;
- `graph_code`: each captured graph's Python code;
- `output_code`: the code the inductor backend generates.

Messages go to the logger `ember.<artifact>` (stderr unless the application configures
logging itself).

    >>> set_logs(recompiles=True)
    >>> enabled("recompiles"), enabled("guards")
    (True, False)
    >>> set_logs()
"""
from __future__ import annotations

import logging
import os

ARTIFACTS = ("recompiles", "graph_breaks", "guards", "graph_code", "output_code")
_on: set[str] = set()


def _parse(spec: str) -> set[str]:
    names = {s.strip().lstrip("+") for s in spec.split(",") if s.strip()}
    unknown = names - set(ARTIFACTS)
    if unknown:
        raise ValueError(f"EMBER_LOGS: unknown artifact(s) {', '.join(sorted(unknown))} "
                         f"(known: {', '.join(ARTIFACTS)})")
    return names


def set_logs(**artifacts: bool) -> None:
    """Turns the named artifacts on (True) or off; called without arguments, all off
    (torch._logging.set_logs)."""
    unknown = set(artifacts) - set(ARTIFACTS)
    if unknown:
        raise ValueError(f"set_logs: unknown artifact(s) {', '.join(sorted(unknown))} "
                         f"(known: {', '.join(ARTIFACTS)})")
    _on.clear()
    _on.update(name for name, on in artifacts.items() if on)


def enabled(artifact: str) -> bool:
    return artifact in _on


def getArtifactLogger(artifact: str) -> logging.Logger:
    """The logger of an artifact, printing to stderr unless logging is configured."""
    logger = logging.getLogger(f"ember.{artifact}")
    if not logger.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter(f"[{artifact}] %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    return logger


def log(artifact: str, message) -> None:
    """Logs `message` (a string, or a callable making one: built only when on)."""
    if artifact in _on:
        getArtifactLogger(artifact).info(message() if callable(message) else message)


_on.update(_parse(os.environ.get("EMBER_LOGS", "")))
