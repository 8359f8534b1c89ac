"""Pruning rules for the Grammalecte list: what is plainly not a French word a player would play.

Each rule reads what the sources say about an entry — Grammalecte's own ``po:`` (part of speech) tags in the
Debian "toutes variantes" .dic, Lexique 3 (is the spelling attested in its corpus?), the French Wiktionary
(is it a headword, and what do its definitions say?) and an English word list — never a pasted list of words.
A rule removes an entry's forms (or, for unit prefixes, a prefix's forms); a word stays if any entry that no
rule prunes also gives it, and ``fr-add.txt`` always wins. ``build.py`` applies them and writes what each rule
removed to ``fr-pruned.txt``.

Rules (in the order they are tried; an entry is counted under the first that matches):
- ``latin_locution``: entries tagged only as parts of locutions (``po:loc.*`` and nothing else), with a Latin
  or Italian ending (-a -i -o -u -ae -oe -am -em -um -is -us), whose spelling neither Lexique 3 nor the French
  Wiktionary has as a word: IPSO, GENERIS, FACTO, EXTREMIS, CAPELLA. A fragment that is also a French word
  keeps it (HOC, a card game; EMBLEE, JEUN, CATIMINI), as do French ones (CROUPETONS, TRAVIOLE, ARRACHEPIED).
- ``prefix_element``: entries tagged ``po:pfx``, prefixes written as words (ANGLO, MULTI).
- ``elided_form``: entries tagged ``po:mg`` and ``po:err``: the stem of an elision that cannot stand alone
  (LORSQU, PUISQU, JUSQU).
- ``english_computing``: nouns spelled as an English word, not attested in Lexique 3, all of whose French
  Wiktionary definitions are about computing (FIRMWARE, PLUGIN, MALWARE, FRAMEWORK).
- ``unit_prefix_family``: forms made by the SI unit-prefix classes of the .aff (the prefix classes that hold
  "kilo") whose prefixed singular neither Lexique 3 nor the French Wiktionary has (ZEPTOGAUSS, ATTOCURIE), and
  every prefixed form of a unit all of whose Wiktionary definitions are about computing (the FLOPS family:
  MEGAFLOPS, TERAFLOPS); attested units stay (KILOMETRE, MEGAWATT, HECTOPASCAL, and FLOPS itself).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

__all__ = ["COMPUTING", "RULES", "Evidence", "TagIndex", "entry_rule", "unit_prefix_flags"]

LATIN_LOCUTION: Final = "latin_locution"
PREFIX_ELEMENT: Final = "prefix_element"
ELIDED_FORM: Final = "elided_form"
ENGLISH_COMPUTING: Final = "english_computing"
UNIT_PREFIX_FAMILY: Final = "unit_prefix_family"
#: Every rule, in the order they are tried and reported.
RULES: Final = (LATIN_LOCUTION, PREFIX_ELEMENT, ELIDED_FORM, ENGLISH_COMPUTING, UNIT_PREFIX_FAMILY)
LATIN_ENDING: Final = re.compile(r"(a|i|o|u|ae|æ|oe|œ|am|em|um|is|us)$")
#: A definition about computing (French Wiktionary wording).
COMPUTING: Final = re.compile(
    r"informati|logiciel|ordinateur|internet|\bweb\b|programm|numérique|\boctets?\b|\bbits?\b|en ligne"
)


@dataclass(frozen=True)
class Evidence:
    """What the other sources say about spellings: normalised Lexique 3 forms and lower-case Wiktionary
    headwords, lower-case English words as spelled, and Wiktionary definitions by headword as spelled
    (senses joined with " | ")."""

    lexique: frozenset[str] = frozenset()
    wiktionary: frozenset[str] = frozenset()
    english: frozenset[str] = frozenset()
    glosses: Mapping[str, str] = field(default_factory=dict)

    def attested(self, word: str | None) -> bool:
        """True if the normalised ``word`` is a Lexique 3 form or a lower-case Wiktionary headword."""
        return word is not None and (word in self.lexique or word in self.wiktionary)

    def about_computing(self, headword: str) -> bool:
        """True if ``headword`` (as spelled) has Wiktionary definitions, all of them about computing."""
        senses = self.glosses.get(headword, "").split(" | ")
        return senses != [""] and all(COMPUTING.search(sense) for sense in senses)


def entry_rule(stem: str, tags: Sequence[str], evidence: Evidence, normalised: str | None) -> str | None:
    """The first rule that prunes an entry with ``stem`` and ``po:`` ``tags`` (``normalised``: the stem as a
    board word, or None), or None if the entry stays. Never raises."""
    if (
        tags
        and all(t.startswith("loc.") for t in tags)
        and LATIN_ENDING.search(stem)
        and not evidence.attested(normalised)
    ):
        return LATIN_LOCUTION
    if "pfx" in tags:
        return PREFIX_ELEMENT
    if "mg" in tags and "err" in tags:
        return ELIDED_FORM
    if (
        "nom" in tags
        and stem in evidence.english
        and (normalised is None or normalised not in evidence.lexique)
        and evidence.about_computing(stem)
    ):
        return ENGLISH_COMPUTING
    return None


def unit_prefix_flags(prefixes: Mapping[str, Iterable[object]]) -> frozenset[str]:
    """The .aff's SI unit-prefix classes: prefix flags one of whose affixes adds "kilo"."""
    return frozenset(
        flag for flag, affixes in prefixes.items() if any(getattr(a, "add", "") == "kilo" for a in affixes)
    )


class TagIndex:
    """Grammalecte's ``po:`` tags by stem, from a tagged .dic (the Debian one), to judge untagged entries of
    the other dictionary (npm's) by the same rules."""

    def __init__(self) -> None:
        self._by_stem: dict[str, list[tuple[frozenset[str], tuple[str, ...]]]] = {}

    def add(self, stem: str, flags: Iterable[str], tags: Sequence[str]) -> None:
        self._by_stem.setdefault(stem, []).append((frozenset(flags), tuple(tags)))

    def rule_for_untagged(
        self, stem: str, flags: Iterable[str], evidence: Evidence, normalised: str | None
    ) -> str | None:
        """The rule for an untagged entry: that of the tagged entries of the same stem and flags, else the
        rule every tagged entry of the stem shares (None if they differ or the stem is unknown)."""
        known = self._by_stem.get(stem, [])
        same = [tags for f, tags in known if f == frozenset(flags)] or [tags for _, tags in known]
        rules = {entry_rule(stem, tags, evidence, normalised) for tags in same}
        return rules.pop() if len(rules) == 1 else None
