"""UI strings read as sentences: "1 free seat", "3 free seats", "Reserve: 1 try", "10 tries" (never
"seat(s)", "try(ies)" once the count is known); French singular for 0 and 1."""

# ruff: noqa: RUF001  (the en dash is what the page shows)

from __future__ import annotations

from app.i18n import Translator
from app.plural import resolve

EN, FR = Translator("en"), Translator("fr")


def test_a_count_settles_the_plural_marks_in_both_languages() -> None:
    assert [EN.t("reserve", tries=n) for n in (0, 1, 10)] == [
        "Reserve: 0 tries",
        "Reserve: 1 try",
        "Reserve: 10 tries",
    ]
    assert [FR.t("reserve", tries=n) for n in (0, 1, 10)] == [
        "Réserve : 0 essai",
        "Réserve : 1 essai",
        "Réserve : 10 essais",
    ]
    assert EN.t("free_n", n=1) == "1 free seat" and FR.t("free_n", n=3) == "3 places libres"
    assert EN.t("j_swapped", name="Zoé", n=2) == "Zoé swaps 2 tiles"


def test_without_a_count_the_marks_stay() -> None:
    assert EN.t("reserve", tries="–") == "Reserve: – try(ies)"
    assert FR.t("rejected_words", words="ZZZ") == "Refusé — mot(s) inconnu(s) : ZZZ"
    assert resolve("{n} tile(s)", {"n": True}, "en") == "{n} tile(s)"  # a flag is not a count
