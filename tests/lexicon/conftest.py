"""Shared fixtures for the word-list tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from relay.lexicon import WordList, load_lexicon


@pytest.fixture(scope="session")
def fr(tmp_path_factory: pytest.TempPathFactory) -> WordList:
    """The shipped list, loaded through a private cache dir (so the test also exercises the first build)."""
    cache: Path = tmp_path_factory.mktemp("lexicon-cache")
    return load_lexicon("fr", cache_dir=cache)


@pytest.fixture
def lexicon_build() -> ModuleType:
    """lexicons/build.py (a script, not a package module) imported fresh, so its names can be checked."""
    spec = importlib.util.spec_from_file_location(
        "lexicon_build", Path(__file__).resolve().parents[2] / "lexicons" / "build.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Registered while it runs: its dataclasses look their module up in sys.modules.
    sys.modules["lexicon_build"] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules["lexicon_build"]
    return module
