"""Issue 30 on the page (CPython, fake doors): ratings beside registered players' names at the table, in the
score sheet, in the waiting room with a rated game's win chances, the changes on the end screen, the "rated"
choice when creating a table, and a profile's ratings with their chart and its data table."""

from __future__ import annotations

import html
import json
from typing import Any

from app import rating_chart
from app.glue.client import Client
from app.i18n import Translator
from app.ratings_view import SeatRating, TableRatings, change_text, rating_html
from fake_browser import FakeBrowser, client_at, text
from web_helpers import run, snapshot

import engine as e

TOKEN = "tok-1"
ME = {
    "account": {"id": "a1", "nickname": "Ann", "created_ms": 0},
    "passkeys": [],
    "recovery_codes_left": 8,
    "ban": None,
    "blocked": [],
}


def _rated(start: bool) -> e.GameState:
    state = e.new_state()
    cmds: list[Any] = [
        e.CreateTable(turn_seconds=60, rated=True),
        e.Join("Ann", account="a1"),
        e.Join("Ben", account="b2"),
    ]
    if start:
        cmds.append(e.Start(0))
    for cmd in cmds:
        state, _ = run(state, cmd)
    return state


def at_table(state: e.GameState) -> tuple[Client, FakeBrowser]:
    client, browser = client_at("/t/abc", {"lexio:abc": TOKEN})
    browser.answer("GET", "/api/account", 200, ME)
    client.begin()
    browser.settle()
    browser.socket.opened()
    browser.socket.receive({"type": "welcome", "id": "j0", "table": "abc", "seat": 0, "token": TOKEN})
    browser.socket.receive(snapshot(state, 0))
    return client, browser


def _frame(**seat_extra: Any) -> dict[str, Any]:
    return {
        "type": "ratings",
        "speed": "rapide",
        "rated": True,
        "seats": [
            {"seat": 0, "rating": 1346, "provisional": True, **seat_extra},
            {"seat": 1, "rating": 1612, "provisional": False, **seat_extra},
        ],
        "now": 0,
    }


def test_the_waiting_room_of_a_rated_table_shows_ratings_and_win_chances_and_offers_no_computer() -> None:
    _, browser = at_table(_rated(start=False))
    browser.socket.receive(_frame(chance=0.5))
    main = text(browser, "main")
    assert "Partie classée · rapide" in main
    assert "1346?" in main and "classement provisoire" in main and "1612" in main
    assert "50 % de chances de gagner" in main
    assert 'id="add-bot"' not in main


def test_at_the_table_the_players_and_the_score_sheet_carry_each_registered_players_rating() -> None:
    _, browser = at_table(_rated(start=True))
    browser.socket.receive(_frame())
    players = text(browser, "t-players")
    assert "1346?" in players and "1612" in players and 'data-testid="rated-kind"' in players
    assert "1612" in text(browser, "t-journal")


def test_the_end_screen_says_each_rating_and_its_change_with_a_sign_never_by_colour() -> None:
    tr = Translator("en")
    up, down = SeatRating(1512, False, 12), SeatRating(1488, False, -8)
    assert (change_text(up), change_text(down), change_text(SeatRating(1500, False, 0))) == (
        "+12",
        "\u22128",
        "±0",
    )
    assert change_text(SeatRating(1500, False)) == ""
    assert "1346?" in rating_html(tr, SeatRating(1346, True)) and "provisional rating" in rating_html(
        tr, SeatRating(1346, True)
    )
    frame = TableRatings.from_frame(
        {**_frame(change=5), "seats": [{"seat": 0, "rating": 1, "change": "x"}, "junk"]}
    )
    assert frame.seats == {0: SeatRating(1, False, None, None)}


def test_a_signed_in_player_may_create_a_rated_table() -> None:
    client, browser = client_at("/", {"lexio:name": "Ann"})
    browser.answer("GET", "/api/account", 200, ME)
    browser.answer("GET", "/api/tables", 200, {"tables": [], "live": []})
    client.begin()
    browser.settle()
    assert 'id="rated-check"' in browser.regions["main"]
    client.on_ui(json.dumps({"t": "bind", "bind": "rated", "checked": True, "type": "change"}))
    browser.answer("POST", "/api/tables", 201, {"id": "xyz", "link": "l", "path": "/t/xyz", "ws": "/ws/xyz"})
    client.on_ui(json.dumps({"t": "click", "act": "create"}))
    browser.settle()
    body = [
        json.loads(b or "{}") for m, u, b in browser.requests if m == "POST" and u.endswith("/api/tables")
    ]
    assert body and body[-1]["rated"] is True


def test_a_guest_is_not_offered_a_rated_table() -> None:
    client, browser = client_at("/", {"lexio:name": "Gus"})
    browser.answer("GET", "/api/account", 401, {"code": "not_signed_in", "message": "m"})
    browser.answer("GET", "/api/tables", 200, {"tables": [], "live": []})
    client.begin()
    browser.settle()
    assert 'id="rated-check"' not in browser.regions["main"]


def test_a_profile_shows_each_class_rating_a_chart_and_the_same_points_in_a_table() -> None:
    data = {
        "ratings": {"rapide": {"rating": 1520, "provisional": False, "games": 14}, "bogus": "x"},
        "rating_history": [
            {"speed": "rapide", "at": 1_765_000_000_000, "rating": 1400, "provisional": True},
            {"speed": "rapide", "at": 1_765_100_000_000, "rating": 1520, "provisional": False},
            {"speed": "rapide", "at": "x", "rating": 1},
        ],
    }
    ratings, history = rating_chart.read(data)
    assert list(ratings) == ["rapide"] and len(history["rapide"]) == 2
    out = html.unescape(rating_chart.section(ratings, history, Translator("en")))
    assert "Rapid" in out and "1520" in out and "14 rated games" in out
    assert 'aria-hidden="true"' in out and out.count("<circle") == 2 and 'class="prov"' in out
    assert out.count("<tr>") == 3 and "1400?" in out  # header + two games, the provisional one marked
    assert "No rated game yet." in rating_chart.section({}, {}, Translator("en"))


def test_the_leaderboard_screen_lists_a_class_its_rows_my_place_and_its_pages() -> None:
    client, browser = client_at("/leaderboard/rapide")
    browser.answer("GET", "/api/account", 200, ME)
    board = {
        "speed": "rapide",
        "page": 0,
        "more": True,
        "total": 40,
        "rows": [{"rank": 1, "nickname": "Zoé", "rating": 1812, "games": 80}],
        "mine": {"rank": 7, "nickname": "Ann", "rating": 1620, "games": 30},
    }
    browser.answer("GET", "/api/leaderboard/rapide?page=0", 200, board)
    client.begin()
    browser.settle()
    main = text(browser, "main")
    assert "Meilleurs joueurs · rapide" in main and "aria-current=page" in main
    assert "Zoé" in main and "1812" in main and 'href="u/Zo%C3%A9"' in main
    assert "Votre place : 7e" in main and "Suivants" in main and "Précédents" not in main


def test_a_leaderboard_that_cannot_be_read_says_so_and_home_links_to_the_boards() -> None:
    client, browser = client_at("/leaderboard")
    browser.answer("GET", "/api/account", 401, {"code": "not_signed_in", "message": "m"})
    browser.answer(
        "GET", "/api/leaderboard/normal?page=0", 503, {"code": "accounts_unavailable", "message": "m"}
    )
    client.begin()
    browser.settle()
    assert "Classement indisponible" in text(browser, "main")
    browser.answer("GET", "/api/tables", 200, {"tables": [], "live": []})
    client.nav.go_home()
    browser.settle()
    assert 'id="leaderboard-link"' in browser.regions["main"]


def test_the_end_screen_marks_registered_players_links_their_profiles_and_gives_the_changes() -> None:
    from app import follow
    from app.render import _tile_html

    state = _rated(start=True)
    for _ in range(6):
        state, _ = run(state, e.Play(state.turn or 0, e.Pass()))
        if state.status == "ended":
            break
    assert state.status == "ended"
    view = e.view(state, 0, now_ms=1)
    ratings = TableRatings.from_frame(_frame(change=-8))
    rows = html.unescape(follow.final_rows(view, Translator("en"), _tile_html, ratings))
    assert rows.count('data-testid="member-link"') == 2 and "(registered player)" in rows
    assert rows.count("(\u22128") == 2
