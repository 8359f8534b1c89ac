"""Issue 27, point 15: one word for a tile. French says "jeton(s)" (English "tile(s)") wherever a tile is
meant; "lettre" only where a letter is (the blank's letter, a word's length, the premium squares' names)."""

from __future__ import annotations

import re

from app.i18n import STRINGS, Translator

# Codes where a letter, not a tile, is meant.
LETTER_MEANT = {
    "blank_dialog",
    "blank_without_letter",
    "bad_letter",
    "keyboard_help",
    "no_word",
    "kind_letter2",
    "kind_letter3",
    # a nickname's characters (issue 29: letters, digits, - and _)
    "nickname_hint",
    "nick_bad_chars",
    "bad_nickname",
}


def _text(template: str) -> str:
    """The words of a string, its {placeholders} left out."""
    return re.sub(r"\{[^}]*\}", "", template)


def test_french_strings_call_a_tile_a_jeton() -> None:
    found = {
        code: fr
        for code, (fr, _en) in STRINGS.items()
        if code not in LETTER_MEANT and re.search(r"\blettres?\b", _text(fr), re.IGNORECASE)
    }
    assert found == {}


def test_english_strings_call_a_tile_a_tile() -> None:
    found = {
        code: en
        for code, (_fr, en) in STRINGS.items()
        if code not in LETTER_MEANT and re.search(r"\bletters?\b(?! tiles)", _text(en), re.IGNORECASE)
    }
    assert found == {}


def test_the_counts_a_player_sees_say_jetons() -> None:
    fr = Translator("fr")
    assert fr.t("tiles_n", n=7) == "7 jetons"
    assert fr.t("last_swapped", name="Robot 1", n=5) == "Robot 1 échange 5 jetons"
    assert "jetons restants" in fr.t("adj_left", n="-4", tiles="AB")
    assert fr.t("unseen") == "Jetons invisibles"
