"""What the screens show: the octagon with labelled squares, ARIA, escaping, the preview, the end screen."""

# ruff: noqa: RUF001  (multiplication signs and dashes are deliberate UI typography)

from __future__ import annotations

import re
from html.parser import HTMLParser

from app import render
from app.i18n import Translator
from app.state import UiState
from web_helpers import T0, first_word, run, snapshot, started

import engine as e

FR, EN = Translator("fr"), Translator("en")


class Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))


def parse(html: str) -> list[tuple[str, dict[str, str | None]]]:
    c = Collect()
    c.feed(html)
    return c.elements


def table_ui(seat: int = 0) -> tuple[UiState, e.GameState]:
    state = started()
    ui = UiState()
    ui.enter_table("t1")
    ui.on_frame(snapshot(state, seat), T0)
    return ui, state


def test_the_board_is_13_by_13_with_16_wall_cells_that_are_not_playable_squares() -> None:
    ui, _ = table_ui()
    cells = parse(render.board(ui, FR))
    grid = [a for tag, a in cells if a.get("role") == "gridcell"]
    assert len(grid) == 169
    walls = [a for a in grid if "k-wall" in (a.get("class") or "")]
    assert len(walls) == 16
    assert all("data-sq" not in a for a in walls)  # a wall cannot be clicked as a square
    assert sorted(a["id"] for a in walls)[:4] == ["sq-A1", "sq-A12", "sq-A13", "sq-A2"]  # type: ignore[index]


def test_squares_have_aria_labels_naming_square_kind_and_content() -> None:
    ui, _ = table_ui()
    cells = {a["id"]: a for _, a in parse(render.board(ui, FR)) if a.get("id", "").startswith("sq-")}  # type: ignore[union-attr]
    # Each name starts with what the square shows (axe: label-content-name-mismatch).
    assert cells["sq-G7"]["aria-label"] == "★, G7, source, vide"
    assert cells["sq-C1"]["aria-label"] == "M×3, C1, mot ×3, vide"
    assert cells["sq-D4"]["aria-label"] == "✕, D4, croisement, vide"
    assert cells["sq-A1"]["aria-label"] == "A1, mur"
    assert cells["sq-B3"]["aria-label"] == "B3, vide"
    en = {a["id"]: a for _, a in parse(render.board(ui, EN)) if a.get("id", "").startswith("sq-")}  # type: ignore[union-attr]
    assert en["sq-F3"]["aria-label"] == "L×3, F3, letter ×3, empty"
    ui.view = {**ui.view, "board": [{"sq": "C1", "letter": "G", "blank": False}]}  # type: ignore[dict-item]
    tile = {a["id"]: a for _, a in parse(render.board(ui, FR)) if a.get("id", "").startswith("sq-")}  # type: ignore[union-attr]
    assert tile["sq-C1"]["aria-label"] == "G, 3 pt, C1, mot ×3"


def test_every_premium_square_carries_a_text_label_not_only_a_colour() -> None:
    ui, _ = table_ui()
    variant = e.get_variant("lexio")
    cells = render.board_cells(ui, FR)
    for sq in variant.squares():
        kind = variant.kind(sq)
        if kind.premium or kind is e.Kind.SOURCE:
            assert re.search(r'class="lbl"[^>]*>[^<]+<', cells[sq]), sq
    legend = render.legend(FR)
    for word in ("L×2", "L×3", "M×2", "M×3", "croisement", "source"):
        assert word in legend


def test_a_blank_shows_its_letter_distinctly() -> None:
    ui, _ = table_ui()
    ui.view = {**ui.view, "board": [{"sq": "G7", "letter": "E", "blank": True}]}  # type: ignore[dict-item]
    cell = render.board_cells(ui, FR)["G7"]
    # No value shown: a blank is worth nothing (and "0" would crowd the letter on a 320 px board).
    assert 'class="tile blank"' in cell and "E, joker" in cell and "<sub" not in cell


def test_player_names_are_escaped() -> None:
    state = e.new_state()
    for cmd in (e.CreateTable(), e.Join("<img src=x>&amp;"), e.Join("Bob"), e.Start(0)):
        state, _ = run(state, cmd)
    ui = UiState()
    ui.enter_table("t1")
    ui.on_frame(snapshot(state, 1), T0)
    html = render.players(ui, FR) + render.status(ui, FR, T0)
    assert "<img" not in html and "&lt;img" in html and "&amp;amp;" in html


def test_the_preview_lists_each_word_its_breakdown_and_the_no_promise_note() -> None:
    ui, state = table_ui()
    move = first_word(state)
    for t in move.tiles:
        idx = next(i for i in ui.available() if ui.rack[i] == ("?" if t.blank else t.letter))
        ui.place(idx, t.square, t.letter if t.blank else None)
    html = render.preview(ui, EN)
    bd = e.analyse(state.board, move.tiles)
    assert f"{bd.total} points" in html
    for w in bd.words:
        assert w.word in html
    assert "may still refuse" in html


def test_a_rejected_play_names_every_refused_word() -> None:
    ui, _ = table_ui()
    ui.rejected = ["XQZ", "AXQZ"]
    assert "XQZ, AXQZ" in render.preview(ui, FR)


def test_the_journal_shows_swaps_as_a_count_and_passes_on_time() -> None:
    state = started()
    state, _ = run(state, e.Play(0, e.Swap(state.seats[0].rack[:3])))
    state, _ = run(state, e.TimeoutPass(1))
    ui = UiState()
    ui.enter_table("t1")
    ui.on_frame(snapshot(state, 1), T0)
    html = render.journal(ui, EN)
    assert "swap 3" in html
    assert "time up (pass)" in html


def test_the_end_screen_shows_a_tie_as_a_shared_win_with_racks_face_up() -> None:
    state = started()
    for _ in range(4):  # 2 rounds of 2 seats without a placement end the game
        state, _ = run(state, e.Play(state.turn, e.Pass()))  # type: ignore[arg-type]
    assert state.status == "ended"
    ui = UiState()
    ui.enter_table("t1")
    ui.on_frame(snapshot(state, 0), T0)
    assert ui.screen == "end"
    html = render.end(ui, EN, "/api/tables/t1/gcg")
    result = state.result
    assert result is not None
    if len(result.winners) > 1:
        assert "Shared win" in html
    else:
        assert "Winner: " in html
    for rack in result.racks:
        for letter in set(rack):
            assert f"<b>{letter}</b>" in html
    assert 'id="download-gcg"' in html and 'href="/api/tables/t1/gcg"' in html


def test_ids_are_unique_on_every_screen() -> None:
    ui, _ = table_ui()
    html = (
        render.table_skeleton(FR)
        + render.board(ui, FR)
        + render.rack_area(ui, FR)
        + render.status(ui, FR, T0)
    )
    ids = [a["id"] for _, a in parse(html) if a.get("id")]
    assert len(ids) == len(set(ids))
    home = render.home(UiState(), FR)
    ids = [a["id"] for _, a in parse(home) if a.get("id")]
    assert len(ids) == len(set(ids))


def test_the_turn_is_announced_to_screen_readers_only_when_it_changes() -> None:
    ui, state = table_ui(seat=1)
    before = render.announce(ui, EN)
    assert before == "P0&#x27;s turn"  # escaped: it is HTML
    ui.on_frame({"type": "clock", "clock": {"turn": 0, "deadline_ms": T0 + 5}, "now": T0 + 1000}, T0 + 1000)
    assert render.announce(ui, EN) == before  # the clock ticking is not news
    after, events = run(state, e.Play(0, e.Pass()))
    ui.on_frame(
        {
            "type": "event",
            "seq": ui.seq + 1,
            "now": T0,
            "event": e.redact_event(events[0], 1),
            "clock": {"turn": after.turn, "deadline_ms": T0 + 1, "grace_deadline_ms": None},
        },
        T0,
    )
    assert render.announce(ui, EN) == "P0 passes. Your turn"  # the turn before is said first (issue 12)


def test_turn_times_read_naturally_in_each_language() -> None:
    assert render._duration(FR, 90) == "1,5 min" and render._duration(EN, 90) == "1.5 min"
    assert render._duration(FR, 30) == "30 s" and render._duration(EN, 120) == "2 min"


def _preview_words(board: list[dict[str, object]], tiles: list[tuple[str, str]]) -> list[tuple[str, dict]]:  # type: ignore[type-arg]
    """Each previewed word's shown text with the engine's own breakdown of it (a made-up board, any rack)."""
    state = started()
    frame = snapshot(state, 0)
    frame["view"] = {**frame["view"], "board": board, "rack": "".join(ch for _, ch in tiles)}
    ui = UiState()
    ui.enter_table("t1")
    ui.on_frame(frame, T0)
    for i, (sq, _) in enumerate(tiles):
        assert ui.place(i, sq)
    assert ui.preview and ui.preview.breakdown, ui.preview
    items = re.findall(r'<li data-testid="preview-word">(.*?)</li>', render.preview(ui, EN))
    texts = [re.sub(r"<[^>]+>", "", x) for x in items]
    return list(zip(texts, [w.to_dict() for w in ui.preview.breakdown.words], strict=True))


def _shown_product(text: str) -> int:
    product = 1
    for n in re.findall(r"×(\d+)", text.split(";", 1)[1] if ";" in text else ""):
        product *= int(n)
    return product


def test_the_preview_states_a_crossing_once_and_not_as_a_word_multiplier_too() -> None:
    # N on the crossing D4 makes AN across and AN down: each word is doubled once, by the crossing alone.
    shown = _preview_words(
        [{"sq": "C4", "letter": "A", "blank": False}, {"sq": "D3", "letter": "A", "blank": False}],
        [("D4", "N")],
    )
    assert len(shown) == 2
    for text, w in shown:
        assert w["word_mult"] == 2 and w["crossing"]
        assert _shown_product(text) == 2, text
        assert "crossing ×2" in text and "word ×" not in text


def test_the_preview_shows_word_squares_and_two_crossings_as_separate_factors() -> None:
    # Seven tiles D4..J4 cover both crossings of row 4, each also in a down word: the main word is x4.
    board = [{"sq": "D3", "letter": "A", "blank": False}, {"sq": "J3", "letter": "A", "blank": False}]
    shown = _preview_words(board, [(f"{c}4", "S") for c in "DEFGHIJ"])
    main = [(t, w) for t, w in shown if w["main"]]
    assert len(main) == 1 and main[0][1]["word_mult"] == 4
    for text, w in shown:
        assert _shown_product(text) == w["word_mult"], text
    # A word square alone is a word multiplier, not a crossing: C1 is word x3.
    ((text, w),) = _preview_words([{"sq": "D1", "letter": "A", "blank": False}], [("C1", "L")])
    assert w["word_mult"] == 3 and "word ×3" in text and "crossing" not in text


def test_while_the_client_is_offline_no_player_is_shown_as_connected() -> None:
    ui, _ = table_ui()
    ui.on_frame({"type": "welcome", "protocol": 1, "table": "t1", "seat": 0, "token": "k", "now": T0}, T0)
    online = render.players(ui, EN)
    assert online.count("● connected") == 2
    for conn in ("offline", "connecting", "stopped"):
        ui.conn = conn
        html = render.players(ui, EN)
        assert "connected" not in html.replace("disconnected", "") and "●" not in html, conn
        assert html.count("? unknown") == 2, conn
        clock = render.status(ui, EN, T0 + 1000)
        assert "1:59" not in clock and "unknown" in clock, conn


def test_while_the_client_is_offline_the_waiting_room_shows_no_one_connected() -> None:
    state = e.new_state()
    for cmd in (e.CreateTable(), e.Join("Ann"), e.Join("Bob")):
        state, _ = run(state, cmd)
    ui = UiState()
    ui.enter_table("t1")
    ui.on_frame({"type": "welcome", "protocol": 1, "table": "t1", "seat": 0, "token": "k", "now": T0}, T0)
    ui.on_frame(snapshot(state, 0), T0)
    assert render.waiting(ui, EN, "x").count("● connected") == 2
    ui.conn = "offline"
    html = render.waiting(ui, EN, "x")
    assert "●" not in html and html.count("? unknown") == 2
