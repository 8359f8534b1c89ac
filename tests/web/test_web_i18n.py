"""UI strings: one table, French and English, keyed by codes that include every engine and relay error."""

from __future__ import annotations

import re
import string
from pathlib import Path

from app.i18n import STRINGS, Translator, pick_language

import engine

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def test_every_engine_error_code_has_a_french_and_an_english_message() -> None:
    for code in engine.ERRORS:
        fr, en = Translator("fr").error(code, {}), Translator("en").error(code, {})
        assert (fr and en and fr != Translator("fr").t("lexio_error")) or code == "lexio_error", code


def test_every_relay_error_code_in_the_protocol_has_a_message() -> None:
    text = PROTOCOL.read_text(encoding="utf-8")
    section = text.split("Relay codes:", 1)[1].split("\n\n", 1)[0]
    codes = re.findall(r"`([a-z_]+)`", section)
    assert codes
    for code in codes:
        assert code in STRINGS, code


def test_both_languages_use_the_same_placeholders() -> None:
    names = lambda s: sorted(f for _, f, _, _ in string.Formatter().parse(s) if f)  # noqa: E731
    for code, (fr, en) in STRINGS.items():
        assert fr.strip() and en.strip(), code
        assert names(fr) == names(en), code


def test_a_missing_parameter_never_breaks_a_message() -> None:
    assert "?" in Translator("fr").error("occupied", {})
    assert Translator("en").error("occupied", {"square": "G7"}) == "Square G7 is taken."


def test_unknown_codes_fall_back_to_a_generic_message() -> None:
    assert Translator("en").error("no_such_code") == Translator("en").t("lexio_error")
    assert Translator("en").t("no_such_key") == "no_such_key"


def test_the_default_language_follows_the_browser_and_falls_back_to_french() -> None:
    assert pick_language(["en-US", "fr"]) == "en"
    assert pick_language(["de-DE", "fr-CA"]) == "fr"
    assert pick_language(["de", "it"]) == "fr"
    assert pick_language([]) == "fr"
