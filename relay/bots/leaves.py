"""Rack-leave values: what the tiles a move keeps are worth, in points, for the next turns.

The value of a leave (1-6 tiles, ``?`` for a blank) is composed from a few fitted numbers, as Quackle derives
its superleaves from self-play: one value per mix of vowels and consonants kept (which carries the leave's
size), one per tile kind (its first copy), a penalty per extra copy of the same kind, and a synergy per pair
of distinct kinds kept together. That representation
generalises from a few hundred self-play games, which a table of every possible leave (hundreds of thousands
of them) would not.

The numbers live in ``leaves.json`` next to this module, written by :mod:`relay.bots.train_leaves` (which
records its seed, game count and time there). :func:`default_model` loads it once per process.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from relay.journal.base import JsonObject

__all__ = ["FEATURES", "FORMAT", "LEAVES_FILE", "LeaveError", "LeaveModel", "default_model", "features"]

LEAVES_FILE: Final = Path(__file__).with_name("leaves.json")
FORMAT: Final = 3


class LeaveError(ValueError):
    """The leave file cannot be read (``code`` ``bad_leaves``: missing, malformed or of another format)."""

    code = "bad_leaves"


VOWELS: Final = frozenset("AEIOUY")


def features(leave: str) -> list[tuple[str, int]]:
    """The active features of ``leave`` with their counts: ``"B21"`` (two vowels and one consonant kept: the
    rack's balance, which also carries the size's own term), ``"1X"`` (X kept), ``"2X"`` (extra copies of X; a
    blank counts once per copy in ``"1?"`` instead), ``"PXY"`` (X and Y kept together, X < Y).

    A blank is a wildcard in the balance: each one counts on the side the leave is short of (a consonant when
    both are even). Format 2 left blanks out of the balance, so a blank-only leave had a balance term of its
    own (``B00``) that absorbed most of the blank's value and ``?S`` came out worth far less than ``?``."""
    counts = Counter(leave)
    kinds = sorted(counts)
    vowels = sum(n for k, n in counts.items() if k in VOWELS)
    blanks = counts.get("?", 0)
    consonants = len(leave) - vowels - blanks
    for _ in range(blanks):
        if vowels < consonants:
            vowels += 1
        else:
            consonants += 1
    out: list[tuple[str, int]] = [(f"B{vowels}{consonants}", 1)]
    for k in kinds:
        if k == "?":
            # Each blank is worth a blank: a second one is as good as the first (two-blank leaves are too
            # rare in self-play to fit a copy penalty, and a zero there let the expert throw one away).
            out.append(("1?", counts[k]))
            continue
        out.append(("1" + k, 1))
        if counts[k] > 1:
            out.append(("2" + k, counts[k] - 1))
    for i, a in enumerate(kinds):
        for b in kinds[i + 1 :]:
            out.append(("P" + a + b, 1))
    return out


def features_format2(leave: str) -> list[tuple[str, int]]:
    """The features of format-2 leave files: as :func:`features`, but blanks left out of the balance (so a
    blank-only leave had a balance term of its own, ``B00``). Kept to read and compare those files."""
    counts = Counter(leave)
    vowels = sum(n for k, n in counts.items() if k in VOWELS)
    consonants = len(leave) - vowels - counts.get("?", 0)
    return [(f"B{vowels}{consonants}", 1), *features(leave)[1:]]


# Each format's weights belong to its own features: a file is read with the features it was fitted with.
FEATURES: Final = {2: features_format2, FORMAT: features}


class LeaveModel:
    """Leave values from fitted per-feature weights (see the module docstring). Read-only once made."""

    def __init__(
        self, weights: dict[str, float], meta: JsonObject | None = None, *, format: int = FORMAT
    ) -> None:
        """Raises LeaveError if ``format`` is not one of :data:`FEATURES`."""
        if format not in FEATURES:
            raise LeaveError(
                f"leave format {format!r} is unknown (this code reads formats {sorted(FEATURES)})"
            )
        self.weights = dict(weights)
        self.meta = dict(meta or {})
        self.format = format
        self._features = FEATURES[format]
        self._cache: dict[str, float] = {}

    def value(self, leave: str) -> float:
        """The leave's value in points (0 for an empty leave). Unknown features count 0."""
        if not leave:
            return 0.0
        key = "".join(sorted(leave))
        cached = self._cache.get(key)
        if cached is None:
            w = self.weights
            cached = sum(w.get(name, 0.0) * n for name, n in self._features(key))
            if len(self._cache) < 200_000:
                self._cache[key] = cached
        return cached

    def to_json(self) -> JsonObject:
        return {
            "format": self.format,
            **self.meta,
            "weights": {k: round(v, 3) for k, v in sorted(self.weights.items())},
        }

    @classmethod
    def from_json(cls, data: object) -> LeaveModel:
        """Raises LeaveError for anything but a leave file of a format in :data:`FEATURES` (the current one,
        or format 2, read with its own features; an unknown format's weights would compose wrong values)."""
        if not isinstance(data, dict) or not isinstance(data.get("weights"), dict):
            raise LeaveError(f"the leave file is not a format-{FORMAT} leave table")
        if data.get("format") not in FEATURES:
            raise LeaveError(
                f"the leave file is format {data.get('format')!r}, this code reads formats "
                f"{sorted(FEATURES)} (refit it: python -m relay.bots.train_leaves)"
            )
        weights = data["weights"]
        if not all(isinstance(k, str) and isinstance(v, int | float) for k, v in weights.items()):
            raise LeaveError("the leave file's weights must map feature names to numbers")
        meta = {k: v for k, v in data.items() if k not in ("format", "weights")}
        return cls({k: float(v) for k, v in weights.items()}, meta, format=data["format"])

    @classmethod
    def load(cls, path: Path = LEAVES_FILE) -> LeaveModel:
        """Read a leave file. Raises LeaveError if it is missing or malformed."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise LeaveError(f"cannot read the leave file {path}: {exc}") from exc
        return cls.from_json(data)


@functools.lru_cache(maxsize=1)
def default_model() -> LeaveModel:
    """The shipped leave values (loaded once per process). Raises LeaveError if the file is broken."""
    return LeaveModel.load()
