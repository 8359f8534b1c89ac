"""The home screen's computer levels with their ratings (#30): each option reads "moyen (≈ 1500)", the
figure from app.level_ratings (written by bench/bot_ratings.py), and keeps its level as its value."""

from __future__ import annotations

import re

from app import screens
from app.home_more import level_label
from app.i18n import Translator
from app.level_ratings import LEVEL_RATINGS
from app.state import LEVELS, UiState

FR, EN = Translator("fr"), Translator("en")


def options(html: str) -> list[tuple[str, str]]:
    select = html.split('<select id="home-bot-level"', 1)[1].split("</select>", 1)[0]
    return re.findall(r'<option value="([a-z]+)"[^>]*>([^<]*)</option>', select)


def test_every_level_option_shows_its_rating_and_keeps_its_value() -> None:
    assert tuple(LEVEL_RATINGS) == LEVELS
    for lang, tr in (("fr", FR), ("en", EN)):
        got = options(screens.home(UiState(lang=lang), tr))
        assert [value for value, _ in got] == list(LEVELS)
        for value, label in got:
            assert label == f"{tr.t('level_' + value)} (≈ {LEVEL_RATINGS[value]})"
    assert level_label(FR, "medium") == f"moyen (≈ {LEVEL_RATINGS['medium']})"
    assert level_label(EN, "medium") == f"medium (≈ {LEVEL_RATINGS['medium']})"


def test_the_chosen_level_stays_selected() -> None:
    state = UiState(lang="en")
    state.bot_level = "strong"
    html = screens.home(state, EN)
    assert f'<option value="strong" selected>strong (≈ {LEVEL_RATINGS["strong"]})</option>' in html


def test_a_level_without_a_figure_shows_its_name_alone() -> None:
    assert level_label(EN, "nonesuch") == EN.t("level_nonesuch")
