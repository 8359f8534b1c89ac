"""Normalisation: the one rule shared by the build (lexicons/build.py) and a host's own word list."""

from __future__ import annotations

import re
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relay.lexicon
from relay.lexicon import normalise

BOARD_WORD = re.compile(r"[A-Z]{2,13}")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("été", "ETE"),
        ("œuvre", "OEUVRE"),
        ("Œuvre", "OEUVRE"),
        ("cœur", "COEUR"),
        ("garçon", "GARCON"),
        ("ex æquo".replace(" ", ""), "EXAEQUO"),
        ("naïve", "NAIVE"),
        ("forêt", "FORET"),
        ("où", "OU"),
        ("ÇA", "CA"),
        ("e\u0301te\u0301", "ETE"),  # already decomposed (NFD) input
        ("  maison \r", "MAISON"),
        ("ANTICONSTITUT", "ANTICONSTITUT"),  # 13 letters: the board's width
    ],
)
def test_accents_and_ligatures_are_spelled_with_board_letters(raw: str, expected: str) -> None:
    assert normalise(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "porte-monnaie",  # hyphen
        "aujourd'hui",  # apostrophe
        "aujourd\u2019hui",  # typographic apostrophe
        "1er",  # digit
        "4x4",
        "pomme de terre",  # space inside
        "a",  # one letter: no one-tile word on the board
        "",
        "   ",
        "anticonstitutionnellement",  # longer than 13
        "μ",  # not Latin
        "k.o.",
    ],
)
def test_words_that_cannot_be_played_are_rejected(raw: str) -> None:
    assert normalise(raw) is None


@settings(max_examples=200)
@given(st.text(max_size=20))
def test_normalise_yields_a_board_word_or_none_and_is_idempotent(raw: str) -> None:
    word = normalise(raw)
    if word is not None:
        assert BOARD_WORD.fullmatch(word)
        assert normalise(word) == word


@settings(max_examples=200)
@given(st.from_regex(BOARD_WORD, fullmatch=True))
def test_board_words_normalise_to_themselves_in_either_case(word: str) -> None:
    assert normalise(word) == word
    assert normalise(word.lower()) == word


def test_build_script_uses_the_loader_normalisation(lexicon_build: ModuleType) -> None:
    assert lexicon_build.normalise is relay.lexicon.normalise
    assert lexicon_build.normalise_lines is relay.lexicon.normalise_lines
