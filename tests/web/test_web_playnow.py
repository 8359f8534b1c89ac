"""Play now on the page (issue #30; CPython, fake doors): the card of a signed-in player's home, the seek
socket and its frames, the wait and the count, the offer's dialog with the seconds left said at 10 and 5 s,
the table it leads to, a computer game meanwhile, and how a seek ends."""

from __future__ import annotations

from typing import Any

import pytest
from app.glue.client import Client
from app.playnow import elapsed
from fake_browser import FakeBrowser, FakeSocket, client_at, text, ui

ME = {
    "account": {"id": "a1", "nickname": "Alice", "created_ms": 0},
    "passkeys": [{"id": "k1", "name": "Passkey 1", "created_ms": 0, "used_ms": None}],
    "recovery_codes_left": 8,
    "ban": None,
    "blocked": [],
}
OFFER = {
    "type": "offer",
    "offer": "o1",
    "players": [{"nickname": "Alice", "rating": "1346?"}, {"nickname": "Bob", "rating": "1523"}],
    "deadline": 1_000_015_000,
    "now": 1_000_000_000,  # the relay's clock: the page counts 15 s from its own
}


def home(me: dict[str, Any] | None = ME, lang: str = "fr") -> tuple[Client, FakeBrowser]:
    client, browser = client_at("/", {"lexio:lang": lang})
    if me is None:
        browser.answer("GET", "/api/account", 401, {"code": "not_signed_in", "message": "m"})
    else:
        browser.answer("GET", "/api/account", 200, me)
    browser.answer("GET", "/api/tables", 200, {"tables": [], "live": []})
    browser.answer("GET", "/api/account/games", 200, {"live": [], "recent": [], "more": False})
    client.begin()
    browser.settle()
    return client, browser


def seeking(client: Client, browser: FakeBrowser, count: int = 2) -> FakeSocket:
    ui(client, t="click", act="playnow-seek")
    sock = browser.socket
    sock.opened()
    sock.receive({"type": "seeking", "speed": "normal", "count": count})
    return sock


def test_a_guest_has_no_play_now_card_and_a_signed_in_player_has_one_with_class_and_size() -> None:
    _, guest = home(None)
    assert 'data-testid="playnow"' not in guest.regions["main"]
    _, browser = home()
    main = browser.regions["main"]
    assert 'data-testid="playnow"' in main and "Jouer maintenant" in text(browser, "main")
    assert '<select id="playnow-speed" data-bind="playnow-speed">' in main
    assert main.count('name="playnow-size"') == 3 and "<legend>" in main  # a labelled radio group
    assert 'id="playnow-seek"' in main


def test_seeking_opens_the_seek_socket_with_the_class_and_size_chosen_and_shows_the_count_and_the_wait() -> (
    None
):
    client, browser = home()
    ui(client, t="bind", bind="playnow-speed", value="rapide", type="change")
    ui(client, t="bind", bind="playnow-size", value="3-4", type="change", checked=True)
    ui(client, t="bind", bind="playnow-size", value="5", type="change", checked=True)  # not a size: kept
    ui(client, t="click", act="playnow-seek")
    sock = browser.socket
    assert sock.url == "ws://lexio.test/ws/seek"
    assert browser.last_patch.get("focus") == "playnow-cancel"
    sock.opened()
    assert sock.sent == [{"type": "seek", "speed": "rapide", "size": "3-4"}]
    sock.receive({"type": "seeking", "speed": "rapide", "count": 3})
    assert 'data-status="seeking"' in browser.regions["main"]
    assert text(browser, "playnow-count") == "3 joueurs en recherche"
    assert 'data-act="play-computer"' in browser.regions["main"]  # the computer meanwhile
    browser.now += 65_000
    client.tick()
    assert text(browser, "playnow-elapsed") == "1:05"
    assert "main" not in browser.last_patch.get("r", {})  # the tick touches only the wait's region
    ui(client, t="click", act="playnow-cancel")
    assert sock.sent[-1] == {"type": "cancel"}
    sock.receive({"type": "cancelled"})
    assert sock.closed_with == 1000
    assert 'id="playnow-seek"' in browser.regions["main"]


def test_an_offer_opens_a_dialog_with_the_ratings_and_the_seconds_left_said_at_10_and_5() -> None:
    client, browser = home()
    sock = seeking(client, browser)
    start = len(browser.patches)
    sock.receive(OFFER)
    dialog = browser.regions["dialog-root"]
    assert 'role="alertdialog"' in dialog and 'aria-modal="true"' in dialog
    assert "Alice" in dialog and "1346?" in dialog and "Bob" in dialog and "1523" in dialog
    assert browser.last_patch.get("focus") == "playnow-confirm"
    assert text(browser, "playnow-secs") == "(15 s)"
    assert 'aria-live="polite"' in dialog and text(browser, "playnow-said") == ""
    said = []
    for _ in range(60):  # 15 s of ticks, four a second
        browser.now += 250
        client.tick()
        said.append(text(browser, "playnow-said"))
    assert sorted(set(said) - {""}) == [
        "Plus que 10 secondes pour confirmer.",
        "Plus que 5 secondes pour confirmer.",
    ]
    # Said when it changes only: the live line is written twice in all.
    writes = [p["r"]["playnow-said"] for p in browser.patches[start:] if "playnow-said" in p.get("r", {})]
    assert writes == ["", "Plus que 10 secondes pour confirmer.", "Plus que 5 secondes pour confirmer."]


def test_confirming_waits_for_the_others_and_paired_opens_the_table_and_sits_under_the_nickname() -> None:
    client, browser = home()
    sock = seeking(client, browser)
    sock.receive(OFFER)
    ui(client, t="click", act="playnow-confirm")
    assert sock.sent[-1] == {"type": "confirm", "offer": "o1"}
    sock.receive({"type": "confirmed", "offer": "o1"})
    assert "disabled" in browser.regions["dialog-root"] and "Confirmé" in text(browser, "dialog-root")
    browser.answer(
        "GET", "/api/tables/t9", 200, {"id": "t9", "status": "waiting", "turn_seconds": 120, "seats": []}
    )
    sock.receive({"type": "paired", "table": "t9", "link": "http://lexio.test/t/t9"})
    assert sock.closed_with == 1000
    assert browser.last_patch.get("push") == "/t/t9" or any(p.get("push") == "/t/t9" for p in browser.patches)
    assert browser.regions["dialog-root"] == ""
    browser.settle()
    table = browser.socket
    assert table.url == "ws://lexio.test/ws/t9"
    table.opened()
    assert table.sent[0]["type"] == "join" and table.sent[0]["name"] == "Alice"


def test_playing_the_computer_meanwhile_keeps_the_seek_and_the_offer_comes_over_the_game() -> None:
    client, browser = home()
    sock = seeking(client, browser)
    browser.answer("POST", "/api/tables", 201, {"id": "c1"})
    browser.answer(
        "GET", "/api/tables/c1", 200, {"id": "c1", "status": "waiting", "turn_seconds": 120, "seats": []}
    )
    ui(client, t="click", act="play-computer")
    browser.settle()
    assert browser.socket.url == "ws://lexio.test/ws/c1"
    assert sock.closed_with is None  # the seek goes on
    assert 'data-testid="playnow-chip"' in browser.regions["hdr"]  # said in the header, off home
    sock.receive(OFFER)
    assert 'id="playnow-dialog"' in browser.regions["dialog-root"]
    assert 'data-testid="playnow-chip"' not in browser.regions["hdr"]
    ui(client, t="key", key="a")  # the dialog's keys stay the dialog's: nothing typed on the board
    ui(client, t="key", key="Escape")  # declines
    assert sock.sent[-1] == {"type": "decline", "offer": "o1"}
    assert browser.regions["dialog-root"] == ""
    sock.receive({"type": "cancelled"})
    assert sock.closed_with == 1000


@pytest.mark.parametrize(
    ("frames", "code"),
    [
        ([{"type": "error", "code": "seek_twice", "message": "m"}], "seek_twice"),
        ([{"type": "error", "code": "not_signed_in", "message": "m"}], "not_signed_in"),
        ([OFFER, {"type": "dropped"}], "playnow_dropped"),
    ],
)
def test_a_seek_that_ends_says_why_in_the_card(frames: list[dict[str, Any]], code: str) -> None:
    client, browser = home()
    ui(client, t="click", act="playnow-seek")
    sock = browser.socket
    sock.opened()
    for frame in frames:
        sock.receive(frame)
    assert f'data-code="{code}"' in browser.regions["main"]
    assert 'id="playnow-seek"' in browser.regions["main"]  # seek again
    assert sock.closed_with == 1000


def test_an_offer_that_falls_through_and_a_lost_connection_are_said() -> None:
    client, browser = home(lang="en")
    sock = seeking(client, browser)
    sock.receive(OFFER)
    ui(client, t="click", act="playnow-confirm")
    sock.receive({"type": "seeking", "speed": "normal", "count": 1})  # someone did not confirm
    assert browser.regions["dialog-root"] == ""
    assert 'data-code="playnow_requeued"' in browser.regions["main"]
    assert 'data-status="seeking"' in browser.regions["main"]
    assert text(browser, "playnow-count") == "1 player looking"
    sock.dropped(1006)
    assert 'data-code="playnow_lost"' in browser.regions["main"]
    assert 'id="playnow-seek"' in browser.regions["main"]


def test_a_wait_reads_as_a_clock() -> None:
    assert [elapsed(ms) for ms in (0, 7_999, 161_000, 3_723_000)] == ["0:00", "0:07", "2:41", "1:02:03"]
