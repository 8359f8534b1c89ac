"""Correspondence play in the page (issue 31): turn times in days offered to a signed-in player only, "my
games" with whose turn, the time left and the last move in words, your games first with their count in the
title and the app's badge."""

from __future__ import annotations

import html
import re
from typing import Any

from app.glue.client import Client
from app.i18n import Translator
from app.profile import LastMove
from app.profile_screens import last_move, time_left
from app.screens import duration
from fake_browser import FakeBrowser, client_at

DAY = 86_400
H = 3_600_000
ZOE = {"seat": 0, "name": "Zoé", "bot": None, "score": 24}
MAX = {"seat": 1, "name": "Max", "bot": None, "score": 7}
FR, EN = Translator("fr"), Translator("en")


def _text(browser: FakeBrowser, region: str = "main") -> str:
    raw = re.sub(r"<[^>]+>", " ", browser.regions.get(region, ""))
    return re.sub(r"[ \t\n]+", " ", html.unescape(raw)).strip()


def _opened(*, signed_in: str | None) -> tuple[Client, FakeBrowser]:
    client, browser = client_at("/")
    if signed_in:
        me = {"account": {"id": "a1", "nickname": signed_in, "created_ms": 0}, "passkeys": []}
        browser.answer("GET", "/api/account", 200, me)
    else:
        browser.answer("GET", "/api/account", 401, {"code": "not_signed_in", "message": "sign in"})
    browser.answer("GET", "/api/tables", 200, {"tables": [], "live": []})
    return client, browser


def _game(table: str, *, yours: bool, left_ms: int, move: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "table": table,
        "seat": 0,
        "status": "playing",
        "your_turn": yours,
        "turn": 0 if yours else 1,
        "turn_name": "Zoé" if yours else "Max",
        "turn_seconds": 2 * DAY,
        "correspondence": True,
        "deadline_ms": 0,
        "time_left_ms": left_ms,
        "activity_ms": 0,
        "last_move": move,
        "players": [ZOE, MAX],
        "link": f"/t/{table}",
    }


def test_days_are_offered_to_a_signed_in_player_in_a_group_of_their_own_and_never_to_a_guest() -> None:
    client, browser = _opened(signed_in="Zoé")
    browser.answer("GET", "/api/account/games", 200, {"live": [], "recent": [], "more": False})
    client.begin()
    browser.settle()
    main = browser.regions["main"]
    assert 'label="Par correspondance (joueurs inscrits)"' in main
    for days, shown in ((1, "1 jour"), (2, "2 jours"), (3, "3 jours"), (7, "7 jours")):
        assert f'<option value="{days * DAY}">{shown}</option>' in main
    client, browser = _opened(signed_in=None)
    client.begin()
    browser.settle()
    assert "jour" not in browser.regions["main"] and "optgroup" not in browser.regions["main"]


def test_a_days_turn_time_is_said_in_days_in_both_languages() -> None:
    assert (
        duration(FR, DAY) == "1 jour" and duration(EN, 7 * DAY) == "7 days" and duration(FR, 90) == "1,5 min"
    )


def test_the_time_left_is_said_in_words_with_its_two_largest_units() -> None:
    assert time_left(FR, 2 * 24 * H + 3 * H + 5) == "Il reste 2 jours et 3 heures"
    assert time_left(FR, 24 * H) == "Il reste 1 jour"
    assert time_left(EN, 5 * H + 30 * 60_000) == "5 hours and 30 minutes left"
    assert time_left(EN, 60_000) == "1 minute left"
    assert time_left(FR, 42_000) == "Il reste 42 secondes"
    assert time_left(FR, 0) == "Temps écoulé"


def test_the_last_move_is_said_in_words_and_a_swap_never_says_which_tiles() -> None:
    assert last_move(FR, LastMove("Zoé", "place", "MAISON", 24)) == "Dernier coup : Zoé, MAISON (+24)"
    assert last_move(EN, LastMove("Max", "pass")) == "Last move: Max passed"
    assert last_move(FR, LastMove("Max", "swap", tiles=3)) == "Dernier coup : Max a échangé 3 jetons"
    assert "temps écoulé pour Max" in last_move(FR, LastMove("Max", "timeout"))
    assert last_move(EN, None) == "No move yet"


def test_my_games_lists_your_turn_first_with_the_time_left_the_last_move_and_the_count_in_the_title() -> None:
    client, browser = _opened(signed_in="Zoé")
    live = [
        _game(
            "A",
            yours=True,
            left_ms=5 * H,
            move={"name": "Max", "kind": "place", "word": "MAISON", "score": 24},
        ),
        _game("B", yours=True, left_ms=30 * H, move=None),
        _game("C", yours=False, left_ms=47 * H, move={"name": "Zoé", "kind": "pass"}),
    ]
    answer = {"live": live, "your_turn": 2, "recent": [], "more": False}
    browser.answer("GET", "/api/account/games", 200, answer)
    client.begin()
    browser.settle()
    main = browser.regions["main"]
    shown = _text(browser)
    assert [m for m in re.findall(r'data-table="(\w)"', main)] == ["A", "B", "C"]  # the relay's order kept
    assert "En cours (À vous dans 2 parties)" in shown
    assert "Il reste 5 heures" in shown and "Il reste 1 jour et 6 heures" in shown
    assert "Dernier coup : Max, MAISON (+24)" in shown and "Dernier coup : Zoé a passé" in shown
    assert "Au tour de Max" in shown and "2 jours par coup" in shown
    patches = [p for p in browser.patches if "title" in p]
    assert patches[-1]["title"] == "(2) Lexio — 2 parties à vous" and patches[-1]["badge"] == 2
    # The turn's owner comes with the answer: no table summary is asked for any more.
    assert not [u for _, u, _ in browser.requests if "/api/tables/" in u]


def test_with_no_game_waiting_the_title_is_plain_and_the_badge_cleared() -> None:
    client, browser = _opened(signed_in="Zoé")
    live = [_game("C", yours=False, left_ms=47 * H, move=None)]
    browser.answer(
        "GET", "/api/account/games", 200, {"live": live, "your_turn": 0, "recent": [], "more": False}
    )
    client.begin()
    browser.settle()
    last = [p for p in browser.patches if "badge" in p][-1]
    assert last["title"] == "Lexio" and last["badge"] == 0
    assert "À vous dans" not in _text(browser)


def test_a_refusal_for_too_many_games_is_said_in_words() -> None:
    assert "50 parties par correspondance" in FR.t("too_many_games")
    assert "1, 2, 3 or 7 days" in EN.t("bad_turn_seconds")
