"""The replay viewer (issue 12, point 4): GCG records stepped through on the engine's reader, checked as
they load; a record that cannot be read or whose scores do not add up is refused with its line."""

from __future__ import annotations

from pathlib import Path

from app import render, replay
from app.i18n import Translator
from app.state import UiState

from engine.gcg import parse_gcg

EN, FR = Translator("en"), Translator("fr")
ENGINE = Path(__file__).resolve().parents[1] / "engine"
LEXIO = (ENGINE / "golden" / "lexio-2p.public.gcg").read_text("utf-8")
CLASSIC = (ENGINE / "corpus" / "gcg-classic" / "josh2.gcg").read_text("utf-8")


def board_html(view: dict) -> str:  # type: ignore[type-arg]
    ui = UiState(lang="en")
    ui.view = view
    return render.board(ui, EN)


def test_a_lexio_record_steps_through_every_move_with_scores_and_the_last_move() -> None:
    rp = replay.load(LEXIO)
    assert isinstance(rp, replay.Replay)
    moves = parse_gcg(LEXIO).moves
    assert len(rp.steps) == len(moves) + 1 and rp.names == ("Zoé Lefèvre", "Bob")
    assert (
        rp.steps[0].board == ()
        and rp.steps[1].last
        and {t["sq"] for t in rp.steps[1].last} == {"E7", "F7", "G7"}
    )
    for st in rp.steps[1:]:
        assert st.move is not None
        assert st.totals[rp.nicks.index(st.move.nick)] == st.move.total
    rs = replay.ReplayState()
    rs.open_text(LEXIO, "lexio-2p.gcg")
    assert rs.step == rs.last_step  # opens on the final position
    assert rs.key("Home") and rs.step == 0
    assert rs.key("ArrowRight") and rs.step == 1
    assert rs.key("ArrowLeft") and rs.step == 0 and rs.key("ArrowLeft") and rs.step == 0
    assert rs.key("End") and rs.step == rs.last_step and not rs.key("a")
    rs.go(1)
    html = replay.html(rs, EN, board_html)
    assert html.count(", last move") == 3
    assert 'aria-current="step"' in html and "Move 1 of 31: Zoé Lefèvre" in html
    assert 'id="replay-slider" min="0" max="31" value="1"' in html
    assert 'id="replay-prev" data-act="replay-go" data-arg="0"' in html
    assert html.count('data-testid="replay-row"') == 31


def test_a_classic_record_from_quackle_reads_on_the_classic_board() -> None:
    rs = replay.ReplayState()
    rs.open_text(CLASSIC)
    assert rs.replay is not None and rs.refusal is None and rs.replay.variant == "classic"
    assert "blank" in replay.html(rs, EN, board_html)  # ALBUGoS: a blank o on the board


def test_scores_that_do_not_add_up_are_refused_with_the_line_and_nothing_else_shown() -> None:
    bad = LEXIO.replace(">Bob: IMEQ 6D IMEQ +31 31", ">Bob: IMEQ 6D IMEQ +35 35", 1)
    rs = replay.ReplayState()
    rs.open_text(bad, "bad.gcg")
    assert rs.replay is None and rs.refusal is not None and rs.refusal.line == 6
    assert "recorded 35, computed 31" in rs.refusal.reason
    html = replay.html(rs, EN, board_html)
    assert 'data-testid="replay-error" data-line="6"' in html and "File refused (line 6)" in html
    assert 'role="grid"' not in html and "replay-row" not in html
    assert "Fichier refusé (ligne 6)" in replay.html(rs, FR, board_html)


def test_an_unreadable_file_is_refused_with_its_line() -> None:
    rs = replay.ReplayState()
    rs.open_text("#player1 a A\n#player2 b B\n>a: ABC 8D\n")
    assert rs.refusal is not None and rs.refusal.line == 3 and rs.replay is None
    rs.open_text("")
    assert rs.refusal is not None and rs.refusal.line == 0
    rs.open_text(LEXIO.replace("#variant lexio", "#variant martian"))
    assert rs.refusal is not None and rs.refusal.line == 2 and "martian" in rs.refusal.reason
    rs.open_text("x" * (replay.MAX_BYTES + 1))
    assert rs.refusal is not None and "larger" in rs.refusal.reason
    # A good file after a bad one replaces the refusal.
    rs.open_text(LEXIO)
    assert rs.refusal is None and rs.replay is not None


def test_the_end_screen_links_to_the_replay() -> None:
    from web_helpers import T0, run, snapshot, started

    import engine as e

    state = started()
    while state.status == "playing":
        state, _ = run(state, e.Play(state.turn, e.Pass()))  # type: ignore[arg-type]
    ui = UiState()
    ui.enter_table("t1")
    ui.on_frame(snapshot(state, 0), T0)
    html = render.end(ui, EN, "/gcg", "/t/t1/replay")
    assert 'id="replay-link" href="/t/t1/replay" data-act="replay" data-arg="t1"' in html
