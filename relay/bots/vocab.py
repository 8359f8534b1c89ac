"""The common-word vocabulary of the lower bot levels (see :mod:`relay.bots.make_vocab` for its source)."""

from __future__ import annotations

import functools
import gzip
from pathlib import Path
from typing import Final

__all__ = ["VOCAB_FILE", "common_words"]

VOCAB_FILE: Final = Path(__file__).with_name("common_fr.txt.gz")


@functools.lru_cache(maxsize=1)
def _ranked() -> tuple[str, ...]:
    with gzip.open(VOCAB_FILE, "rt", encoding="utf-8") as f:
        return tuple(line.strip() for line in f if line.strip() and not line.startswith("#"))


def common_words(top: int) -> tuple[str, ...]:
    """The ``top`` most frequent French board words, most frequent first (read once per process).
    Raises OSError if the shipped file is missing."""
    return _ranked()[:top]
