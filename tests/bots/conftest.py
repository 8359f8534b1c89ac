"""Fixtures for the bots' tests: word graphs of the small test list and of the shipped French list."""

from __future__ import annotations

import sys
from pathlib import Path

# An editable install made before engine/ and relay/ had an __init__.py maps them as namespace packages;
# the repository root first on the path makes the real packages win (as tests/relay does).
_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

import pytest  # noqa: E402
from botkit import SMALL_WORDS  # noqa: E402

from relay.bots.graph import WordGraph, build_graph, load_graph  # noqa: E402
from relay.lexicon import WordList, load_lexicon  # noqa: E402


@pytest.fixture(scope="session")
def small_graph() -> WordGraph:
    return build_graph(SMALL_WORDS)


@pytest.fixture(scope="session")
def fr_words() -> WordList:
    """The shipped French list (its DAWG and the move graph are cached under .cache/ after the first run)."""
    return load_lexicon("fr")


@pytest.fixture(scope="session")
def fr_graph(fr_words: WordList) -> WordGraph:
    return load_graph(fr_words)
