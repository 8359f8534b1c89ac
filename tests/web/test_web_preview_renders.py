"""A key on the board redraws only what it changed (issue 28, "the preview under 1 ms"): the rack and the
preview when a tile moved, a few squares, never the status line, the announcement, the header or the side
panels; and the page it leaves is the page a full render draws from scratch."""

from __future__ import annotations

import copy
import dataclasses
import functools
import re
from typing import Any

import pytest
from app import render
from app.glue import rendering
from app.glue.client import Client
from app.glue.rendering import Renderer
from app.glue.session import PagePatch
from app.payloads import encode_patch
from fake_browser import FakeBrowser, apply_regions, client_at, decode_patch, ui
from hypothesis import example, given, settings
from hypothesis import strategies as st
from web_helpers import snapshot, started

TOKEN = "tok-1"
CELL = re.compile(r'<div class="[^"]*" id="sq-([A-Z]\d+)"[^>]*>.*?</div>')


def demo() -> tuple[Client, FakeBrowser]:
    """The offline demo table (bench/browser.py's preview), the board focused."""
    client, browser = client_at("/")
    client.begin("2")
    ui(client, t="focus", id="board")
    return client, browser


def seated() -> tuple[Client, FakeBrowser]:
    """Seat 0 at a started two-player table on the relay, on turn: a countdown and a reserve that tick."""
    client, browser = client_at("/t/abc", {"lexio:abc": TOKEN, "lexio:name": "P0"})
    client.begin()
    browser.socket.opened()
    browser.socket.receive({"type": "welcome", "id": "j0", "table": "abc", "seat": 0, "token": TOKEN})
    browser.socket.receive(snapshot(started(2), 0))
    ui(client, t="focus", id="board")
    return client, browser


def key(client: Client, k: str) -> None:
    ui(client, t="key", key=k, shift=False, ctrl=False)


def rack_letters(client: Client) -> list[str]:
    s = client.session.state
    return [s.rack[i] for i in s.available() if s.rack[i] != "?"]


def drawn_by(client: Client, action: Any) -> dict[str, int]:
    """The regions ``action`` drew (Renderer.keyed), with how many times."""
    before = dict(client.renderer.drawn)
    action()
    after = client.renderer.drawn
    return {r: n - before.get(r, 0) for r, n in after.items() if n != before.get(r, 0)}


def page_of(browser: FakeBrowser) -> dict[str, str]:
    """The page's regions as it shows them: every patch applied in turn as the page applies it (regions, then
    squares, then the board's attributes: web/src/index.html)."""
    regions: dict[str, str] = {}
    for patch in browser.patches:
        apply_regions(regions, patch.get("r", {}))
        cells = patch.get("c", {})
        if cells:
            board = regions["t-board"]
            regions["t-board"] = CELL.sub(lambda m, c=cells: c.get(m.group(1), m.group(0)), board)
        for element, name, value in patch.get("a", []):
            if element == "board":
                board = regions["t-board"]
                head = re.search(r'<div id="board"[^>]*>', board)
                assert head is not None
                tag = re.sub(f' {name}="[^"]*"', "", head.group(0))[:-1] + f' {name}="{value}">'
                regions["t-board"] = board[: head.start()] + tag + board[head.end() :]
    return regions


def full_render(client: Client) -> dict[str, str]:
    """The page a fresh renderer draws from the same state, nothing remembered (its pieces made afresh)."""
    render.forget_drawn()
    fresh = FakeBrowser(now=client.browser.now_ms())
    # Its own copy of the turn's signals: observing the turn must not change what the client remembers.
    ses = dataclasses.replace(client.session, signals=copy.deepcopy(client.session.signals))
    Renderer(ses, PagePatch(fresh, {}), fresh).render()
    return page_of(fresh)


def assert_same_page(client: Client, browser: FakeBrowser) -> None:
    expected = full_render(client)
    shown = page_of(browser)
    for region, html in expected.items():
        assert shown.get(region) == html, region


def test_typing_a_letter_draws_the_rack_and_the_preview_only() -> None:
    client, browser = demo()
    key(client, "ArrowUp")
    letter = rack_letters(client)[0]
    drawn = drawn_by(client, lambda: key(client, letter))
    assert drawn == {"t-rack": 1, "t-preview": 1}
    patch = browser.patches[-1]
    assert set(patch["r"]) == {"t-rack", "t-preview"}
    assert 1 <= len(patch["c"]) <= 4  # the square typed on, the cursor's next one, the previewed word's
    assert patch["focus"] == "board"  # in the key's own patch: one message to the page per key


def test_a_second_letter_sends_the_rack_tiles_alone() -> None:
    """The first tile placed enables Play and Take back: the whole rack region. The next one changes only
    the tiles: #rack's inner HTML alone, and the page is still what a full render draws."""
    client, browser = demo()
    key(client, "ArrowUp")
    first, second = rack_letters(client)[:2]
    key(client, first)
    assert "t-rack" in browser.patches[-1]["r"]
    assert drawn_by(client, lambda: key(client, second)) == {"t-rack": 1, "t-preview": 1}
    patch = browser.patches[-1]
    assert set(patch["r"]) == {"rack", "t-preview"}
    assert 'data-testid="rack-tile"' in patch["r"]["rack"] and "btn-submit" not in patch["r"]["rack"]
    assert_same_page(client, browser)
    key(client, "Backspace")  # taken back: the tiles again
    assert set(browser.patches[-1]["r"]) == {"rack", "t-preview"}
    assert_same_page(client, browser)


def test_moving_the_cursor_draws_no_region_and_sends_its_two_squares() -> None:
    client, browser = demo()
    key(client, "ArrowUp")
    sent = len(browser.patches)
    assert drawn_by(client, lambda: key(client, "ArrowLeft")) == {}
    assert len(browser.patches) == sent + 1
    patch = browser.patches[-1]
    assert "r" not in patch
    assert len(patch["c"]) == 2  # the square left and the square reached


def test_a_key_that_changes_nothing_sends_nothing_but_its_timing() -> None:
    client, browser = demo()
    key(client, "Escape")  # nothing placed: nothing to recall
    assert drawn_by(client, lambda: key(client, "Escape")) == {}
    assert set(browser.patches[-1]) <= {"perf", "ts", "focus"}


def test_the_page_after_keys_and_clicks_on_the_demo_table_is_a_full_render() -> None:
    client, browser = demo()
    assert_same_page(client, browser)
    letters = rack_letters(client)
    steps: list[Any] = [
        lambda: key(client, "ArrowUp"),
        lambda: key(client, letters[0]),
        lambda: key(client, letters[1]),
        lambda: key(client, " "),  # the direction: the cursor's square and the rack's button change
        lambda: key(client, letters[2]),
        lambda: key(client, "Backspace"),
        lambda: ui(client, t="click", sq="H8"),
        lambda: ui(client, t="click", rack=client.session.state.available()[0]),
        lambda: ui(client, t="click", act="shuffle"),
        lambda: key(client, "Escape"),
        lambda: ui(client, t="click", sq="E6"),
        lambda: key(client, letters[3]),
        lambda: ui(client, t="click", act="lang", arg="en"),  # every region again, in English
        lambda: key(client, "ArrowDown"),
        lambda: ui(client, t="click", act="recall"),
    ]
    for step in steps:
        step()
        assert_same_page(client, browser)


def test_the_page_at_a_relay_table_stays_a_full_render_as_the_clock_runs() -> None:
    client, browser = seated()
    letters = rack_letters(client)
    key(client, "ArrowUp")
    for i, letter in enumerate(letters[:3]):
        browser.now += 700  # a second boundary every other step: the countdown moves on its own
        client.tick()
        assert_same_page(client, browser)
        key(client, letter)
        assert_same_page(client, browser)
        if i == 1:
            # The view changes (a frame from the relay): the status and the players' regions follow.
            browser.socket.receive({"type": "watchers", "count": 2})
            assert_same_page(client, browser)
    browser.now += 60_000  # the reserve refills, the countdown nears its end
    client.tick()
    assert_same_page(client, browser)
    key(client, "Escape")
    assert_same_page(client, browser)


def _notice(c: Client) -> None:
    c.session.set_notice("welcome_back", {"name": "P0"})


def _offline(c: Client) -> None:
    c.session.state.conn, c.session.state.retry_at = "offline", c.browser.now_ms() + 5_000


def _stopped(c: Client) -> None:
    c.session.state.conn, c.session.state.stop_reason = "stopped", "table_gone"


def _signed_in(c: Client) -> None:
    c.session.account.known, c.session.account.nickname, c.session.state.member = True, "P0", "P0"


CHAT_MESSAGE = {"id": 1, "channel": "seats", "seat": 1, "name": "P1", "text": "hi", "at": 0}


def _menu_opened(c: Client) -> None:
    _signed_in(c)
    key(c, "ArrowLeft")
    key(c, "ArrowLeft")  # quiet again, signed in
    c.session.account.menu_open = True


QUIET_TABLE_CHANGES: dict[str, Any] = {
    "a notice": _notice,
    "the sound muted": lambda c: c.session.signals.toggle_sound(),
    "the connection lost": _offline,
    "the connection stopped": _stopped,
    "signed in": _signed_in,
    "notifications to ask for": lambda c: setattr(c.session, "notify_perm", "default"),
    "watchers": lambda c: setattr(c.session.state, "watchers", 3),
    "a dialog": lambda c: setattr(c.session.state, "dialog", "blank"),
    "the header's menu": _menu_opened,
    "the account's answer (a guest)": lambda c: setattr(c.session.account, "known", True),
    "reconnecting": lambda c: setattr(c.session.state, "conn", "connecting"),
    "a chat message": lambda c: c.session.chat.on_frame({"type": "chat", "message": CHAT_MESSAGE}),
}


@pytest.mark.parametrize("change", list(QUIET_TABLE_CHANGES))
def test_a_key_at_a_quiet_table_draws_whatever_changed_around_the_table(change: str) -> None:
    """A key at a quiet table draws the table's regions only (Renderer.quiet_table); anything else that
    changed since (set here without a render) makes it a full render: conftest's CHECK_KEYS draws the full
    page after each quiet one and fails if it adds anything, and the page is a full render's."""
    client, browser = seated()
    key(client, "ArrowUp")
    key(client, "ArrowLeft")  # quiet: the table's regions alone
    QUIET_TABLE_CHANGES[change](client)
    key(client, "ArrowLeft")
    assert_same_page(client, browser)
    key(client, "ArrowLeft")
    assert_same_page(client, browser)


def test_a_key_at_a_quiet_table_skips_the_rest_of_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    client, browser = seated()
    key(client, "ArrowUp")
    renderer = client.renderer
    full: list[int] = []
    page = renderer.render_page
    monkeypatch.setattr(renderer, "render_page", lambda now: (full.append(now), page(now))[1])
    monkeypatch.setattr(rendering, "CHECK_KEYS", False)  # (which draws the full page to compare)
    key(client, rack_letters(client)[0])
    key(client, "ArrowLeft")
    assert full == []
    assert_same_page(client, browser)
    client.session.signals.toggle_sound()
    key(client, "ArrowLeft")
    assert len(full) == 1


def test_a_key_leaves_the_announcement_the_status_and_the_side_panels_as_they_were(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A key on the board changes the local play only: its render does not even look at the turn's
    announcement, the status line or the side panels (their inputs are the server's); a frame's does."""
    client, browser = seated()
    key(client, "ArrowUp")
    renderer = client.renderer
    looked: list[str] = []
    for name in ("write_announce", "write_status"):
        method = getattr(renderer, name)
        monkeypatch.setattr(renderer, name, lambda *a, n=name, m=method: (looked.append(n), m(*a))[1])
    monkeypatch.setattr(rendering, "CHECK_KEYS", False)  # (which draws the full page to compare)
    key(client, rack_letters(client)[0])
    key(client, "ArrowLeft")
    ui(client, t="click", sq="H8")
    assert looked == []
    assert_same_page(client, browser)
    browser.socket.receive({"type": "presence", "seat": 1, "online": False})
    assert looked == ["write_announce", "write_status"]


def test_a_key_at_a_quiet_table_leaves_the_countdown_to_the_tick() -> None:
    client, browser = seated()
    key(client, "ArrowUp")
    browser.now += 1_000  # a second of the countdown went by, no tick yet
    key(client, "ArrowLeft")
    assert "t-status" not in browser.patches[-1].get("r", {})
    client.tick()
    assert "t-status" in browser.patches[-1].get("r", {})
    assert_same_page(client, browser)


PATCH_TEXT = st.text(st.characters(codec="utf-8"), max_size=40)


@given(
    regions=st.dictionaries(st.sampled_from(["t-rack", "t-preview", "hdr", "rack"]), PATCH_TEXT, max_size=3),
    cells=st.dictionaries(st.sampled_from(["H8", "I8", "E6"]), PATCH_TEXT, max_size=3),
    focus=st.one_of(st.none(), PATCH_TEXT),
)
def test_a_patch_reaches_the_page_as_it_was_made_whatever_its_html(
    regions: dict[str, str], cells: dict[str, str], focus: str | None
) -> None:
    """app.payloads.encode_patch: JSON, then each region's and square's HTML raw after a NUL (read as
    web/src/index.html reads it: fake_browser.decode_patch); HTML holding a NUL goes as JSON."""
    patch: dict[str, Any] = {"ts": 1.5}
    if regions:
        patch["r"] = regions
    if cells:
        patch["c"] = cells
    if focus is not None:
        patch["focus"] = focus
    text = encode_patch(patch)  # type: ignore[arg-type]
    assert decode_patch(text) == patch
    raw = any("\x00" in h for h in [*regions.values(), *cells.values()])
    assert text.startswith("{") and ("\x00" in text) == bool((regions or cells) and not raw)


def test_a_keystroke_s_html_is_not_json_escaped() -> None:
    client, browser = demo()
    key(client, "ArrowUp")
    sent: list[str] = []
    post = browser.post
    browser.post = lambda text: (sent.append(text), post(text))[1]  # type: ignore[method-assign]
    key(client, rack_letters(client)[0])
    head, *html = sent[-1][len("lexio:") :].split("\x00")
    assert '"R":["t-rack","t-preview"]' in head and len(html) == 2 + len(browser.patches[-1]["c"])
    assert html[1] == browser.patches[-1]["r"]["t-preview"] and '<h2 class="sr-title">' in html[1]


def test_the_preview_keeping_its_board_answers_as_the_engine() -> None:
    """app.live_preview.BoardKeptPreview builds the board once per view and hands the engine typed tiles:
    the same answers as engine.preview of the same placement in JSON, for good and bad placements, a new
    view, and views the engine refuses."""
    from app.board_play import Pending
    from app.live_preview import BoardKeptPreview

    import engine

    client, _ = demo()
    s = client.session.state
    assert s.view is not None
    kept = BoardKeptPreview()
    view = s.view
    rack = [s.rack[i] for i in s.available() if s.rack[i] != "?"]
    placements: list[list[Pending]] = [
        [Pending("H8", 0, rack[0], False)],
        [Pending("H8", 0, rack[0], False), Pending("I8", 1, rack[1], False)],
        [Pending("H8", 0, rack[0], False), Pending("J9", 1, rack[1], False)],
        [Pending("A1", 0, rack[0], False)],  # a wall
        [Pending("Z99", 0, "E", False)],  # off the board
        [Pending("H8", 0, "", True)],  # a blank with no letter
        [Pending("H8", 0, "3", False)],  # not a letter
    ]
    other = copy.deepcopy(view)  # a new view (equal, another object): its own board
    broken = {**view, "variant": "nope"}  # a variant the engine does not know
    scored = 0
    for v in (view, view, other, broken, "not a view", view):
        for tiles in placements:
            got = kept(v, tiles)  # type: ignore[arg-type]
            scored += got.ok
            as_json = [{"sq": p.sq, "letter": p.letter, "blank": p.blank} for p in tiles]
            where = v if isinstance(v, str) else v.get("variant")
            assert got.to_dict() == engine.preview(v, as_json), (where, tiles)
            assert got.ok == (got.error is None)
    assert scored >= 3 * 2  # good placements were scored on each readable view (not only refusals)
    assert kept.view is view  # kept for the view last asked about that the engine could read


# What a pending tile holds: a square of the board (or one that is not: "Z99", "A0") and an upper-case letter
# (or not a letter), as app.board_play makes them; engine.preview would normalise other spellings first.
PENDING_SQUARES = st.one_of(
    st.sampled_from(["E6", "F6", "G6", "H6", "H8", "I8", "H9", "A1", "G7"]),
    st.sampled_from(["Z99", "A0", "", "G"]),
)
PENDING_LETTERS = st.sampled_from([*"AEKSZ", "", "É", "AB", "?", "3"])


@functools.cache
def demo_view() -> dict[str, Any]:
    view = demo()[0].session.state.view
    assert view is not None
    return dict(view)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(PENDING_SQUARES, PENDING_LETTERS, st.booleans()), max_size=8))
@example([("E6", "S", False), ("F6", "A", False), ("G6", "K", True), ("H6", "E", False)])  # a scored play
def test_the_live_preview_of_any_placement_is_the_engine_s_json_preview(
    placed: list[tuple[str, str, bool]],
) -> None:
    """The typed live preview (app.live_preview) answers exactly as engine.preview does on the same tiles in
    JSON: the same breakdown, or the same refusal, for any squares and letters a pending tile can hold."""
    from app.board_play import Pending
    from app.live_preview import BoardKeptPreview

    import engine

    view = demo_view()
    pending = [Pending(sq, i, letter, blank) for i, (sq, letter, blank) in enumerate(placed)]
    as_json = [{"sq": sq, "letter": letter, "blank": blank} for sq, letter, blank in placed]
    assert BoardKeptPreview()(view, pending).to_dict() == engine.preview(view, as_json)  # type: ignore[arg-type]
