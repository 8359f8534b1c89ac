"""Shared fixtures for the word-list tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from relay.lexicon import WordList, load_lexicon


@pytest.fixture(scope="session")
def fr(tmp_path_factory: pytest.TempPathFactory) -> WordList:
    """The shipped list, loaded through a private cache dir (so the test also exercises the first build)."""
    cache: Path = tmp_path_factory.mktemp("lexicon-cache")
    return load_lexicon("fr", cache_dir=cache)
