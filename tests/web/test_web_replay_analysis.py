"""The replay viewer shows a seat's own analysis at each of its moves (issue 13, point 5), privately.

Private: only a browser that holds the table's seat token sees it (the analysis the relay served it once,
kept in its storage, or asked for from the viewer); the analysis must fit the record it is shown against."""

# ruff: noqa: RUF001  (the minus sign is what the page shows)

from __future__ import annotations

from pathlib import Path
from typing import Any

from app import analysis_store, render, replay, replay_analysis
from app.i18n import STRINGS, Translator
from app.markup import escape
from app.state import UiState
from test_web_analysis import ANALYSIS
from test_web_rematch import at_table, buttons, ended
from web_helpers import T0

from engine.gcg import parse_gcg

EN = Translator("en")
GOLDEN = Path(__file__).resolve().parents[1] / "engine" / "golden" / "lexio-2p.public.gcg"
TEXT = GOLDEN.read_text("utf-8")
TABLE = "T1abc"
# What the relay serves: its GCG names the table after the encoding line.
HEAD, _, REST = TEXT.partition("\n")
RECORD = f"{HEAD}\n#id lexio {TABLE}\n{REST}"


def board_html(view: dict[str, Any]) -> str:
    ui = UiState(lang="en")
    ui.view = view
    return render.board(ui, EN)


def zoe_analysis() -> list[dict[str, Any]]:
    """An analysis of seat 0 (Zoé) shaped as the relay's: one entry per turn of hers."""
    out = []
    turn = 0
    for m in parse_gcg(TEXT).moves:
        if m.kind not in ("place", "swap", "pass"):
            continue
        turn += 1
        if m.nick != "Zoé_Lefèvre":
            continue
        played: dict[str, Any] = {"kind": m.kind, "score": m.score, "equity": float(m.score)}
        if m.kind == "place":
            played |= {"notation": f"{m.position} {m.word}", "words": [m.word]}
        best = {"kind": "place", "notation": "H8 ZEBU", "words": ["ZEBU"], "score": 40, "equity": 41.5}
        lost = 0.0 if turn == 3 else 12.5
        out.append({"turn": turn, "played": played, "best": played if lost == 0 else best, "lost": lost})
    return out


def storage(*, token: bool = True, kept: list[dict[str, Any]] | None = None) -> dict[str, str]:
    st: dict[str, str] = {"lexio:name": "Zoé"}
    if token:
        st["lexio:" + TABLE] = "tok"
    if kept is not None:
        st[analysis_store.PREFIX + TABLE] = analysis_store.encode(0, kept, T0)
    return st


def opened(text: str, st: dict[str, str], table: str | None = None) -> replay.ReplayState:
    rs = replay.ReplayState(table=table)
    rs.open_text(text, "" if table else "game.gcg")
    replay_analysis.attach(rs, st)
    return rs


def test_a_record_names_its_table_and_its_seats_nicks() -> None:
    rp = replay.load(RECORD)
    assert isinstance(rp, replay.Replay)
    assert rp.record_id == TABLE and rp.seat_nicks == ("Zoé_Lefèvre", "Bob")
    other = replay.load(TEXT)
    assert isinstance(other, replay.Replay) and other.record_id is None


def test_at_each_of_your_moves_the_replay_shows_the_experts_choice_its_score_and_the_equity_lost() -> None:
    rs = opened(RECORD, storage(kept=zoe_analysis()))  # a dropped file: the table from its #id
    rs.go(1)  # Zoé's first move: 7E LNM +4
    html = replay.html(rs, EN, board_html)
    assert 'aria-labelledby="ra-title"' in html and ">Analysis of your moves</h2>" in html
    assert "<dt>Your move</dt><dd>7E LNM — 4 points</dd>" in html  # as the sheet words it
    assert "<dt>Expert&#x27;s choice</dt><dd>ZEBU (H8 ZEBU) — 40 points</dd>" in html
    assert "<dt>Equity lost</dt><dd>12.5</dd>" in html
    # The sheet gains the column: the loss on her rows, "best" where she matched the expert, blank on Bob's.
    assert '<th scope="col">Equity lost</th>' in html
    assert html.count(">12.5</td>") == len(zoe_analysis()) - 1 and html.count(">best</td>") == 1
    assert "−12.5" not in html  # "Equity lost" says the sign: no double negative
    b = buttons(html)
    assert "disabled" in b["ra-prev"] and b["ra-next"]["data-arg"] == "3"
    rs.go(3)  # her second move, the expert's choice
    html = replay.html(rs, EN, board_html)
    assert "<dd>the same move: well played</dd>" in html and "<dt>Equity lost</dt>" not in html
    rs.go(2)  # Bob's move
    html = replay.html(rs, EN, board_html)
    assert "This move is not yours" in html and "<dt>Your move</dt>" not in html
    assert buttons(html)["ra-prev"]["data-arg"] == "1" and buttons(html)["ra-next"]["data-arg"] == "3"


def test_nobody_but_the_seat_sees_it() -> None:
    # The same browser storage without the seat's token (another player, a spectator, a seat given up).
    for st in (storage(token=False, kept=zoe_analysis()), {}):
        rs = opened(RECORD, st)
        assert rs.analysis is None
        html = replay.html(rs, EN, board_html)
        assert "replay-analysis" not in html and "Equity lost" not in html and "ZEBU" not in html
    # A record without #id names no table: nothing, even with the analysis kept.
    rs = opened(TEXT, storage(kept=zoe_analysis()))
    assert rs.analysis is None


def test_an_analysis_that_does_not_fit_the_record_is_never_shown() -> None:
    wrong = zoe_analysis()
    wrong[0]["played"]["notation"] = "8H LNM"
    assert opened(RECORD, storage(kept=wrong)).analysis is None
    shifted = [{**m, "turn": m["turn"] + 1} for m in zoe_analysis()]  # Bob's turns
    assert opened(RECORD, storage(kept=shifted)).analysis is None
    assert opened(RECORD, storage(kept=[{"turn": 999, "played": {"kind": "pass"}}])).analysis is None


def test_a_seat_without_it_may_ask_from_the_viewer_then_sees_it() -> None:
    rs = opened(RECORD, storage(), table=TABLE)  # /t/T1abc/replay, nothing kept yet
    assert rs.analysis is not None and not rs.analysis.ready
    html = replay.html(rs, EN, board_html)
    ask = buttons(html)["replay-ask-analysis"]
    assert ask["data-act"] == "replay-analyse" and "aria-disabled" not in ask
    assert "Analyse my moves" in html and "Equity lost" not in html
    rs.analysis.pending = True
    ask = buttons(replay.html(rs, EN, board_html))["replay-ask-analysis"]
    assert ask["aria-busy"] == "true" and ask["aria-disabled"] == "true"
    replay_analysis.refused(rs, "analysis_used")
    html = replay.html(rs, EN, board_html)
    assert 'role="alert"' in html and "You already had this game&#x27;s analysis." in html
    assert replay_analysis.received(rs, 0, zoe_analysis())
    rs.go(1)
    html = replay.html(rs, EN, board_html)
    assert "replay-ask-analysis" not in html and "<dd>12.5</dd>" in html
    assert not replay_analysis.received(rs, 1, zoe_analysis())  # Bob's seat: not these moves
    assert rs.analysis.error == "analysis_unavailable"


def test_the_browser_keeps_what_it_was_served_and_forgets_it_with_the_seat() -> None:
    st = storage(kept=zoe_analysis())
    assert analysis_store.load(st, TABLE) == (0, zoe_analysis())
    assert analysis_store.load(storage(token=False, kept=zoe_analysis()), TABLE) is None
    assert analysis_store.decode("{") is None and analysis_store.decode('{"seat": true, "moves": []}') is None
    # Kept: at most KEEP, the oldest dropped first; and none for a table whose seat is gone.
    many = {f"lexio:t{i}": "tok" for i in range(analysis_store.KEEP + 3)}
    many |= {f"{analysis_store.PREFIX}t{i}": analysis_store.encode(0, [], T0 + i) for i in range(len(many))}
    many[analysis_store.PREFIX + "gone"] = analysis_store.encode(0, [], T0 + 999)
    drop = analysis_store.to_drop(many)
    assert drop == sorted(
        [f"{analysis_store.PREFIX}t{i}" for i in range(3)] + [analysis_store.PREFIX + "gone"]
    )


def test_the_end_screen_shown_again_shows_the_analysis_instead_of_a_refused_button() -> None:
    ui = at_table(ended(), 0, "P0")  # table "old", seat 0
    kept = {
        "lexio:old": "tok",
        analysis_store.PREFIX + "old": analysis_store.encode(0, ANALYSIS["moves"], T0),
    }
    assert analysis_store.restore(ui, kept)
    html = render.end(ui, EN, "/gcg")
    assert "ask-analysis" not in buttons(html) and html.count('data-testid="analysis-row"') == 2
    other = at_table(ended(), 1, "P1")  # another seat of that table: not seat 0's
    assert not analysis_store.restore(other, kept) and other.analysis is None
    assert "ask-analysis" in buttons(render.end(other, EN, "/gcg"))


def test_the_experts_choice_can_be_put_on_the_board_in_place_of_the_move_played() -> None:
    moves = zoe_analysis()
    moves[0]["best"] = {"kind": "place", "notation": "7D MOT", "words": ["MOT"], "score": 6, "equity": 9.0}
    rs = opened(RECORD, storage(kept=moves))
    rs.go(1)
    html = replay.html(rs, EN, board_html)
    toggle = buttons(html)["ra-show-best"]
    assert toggle["aria-pressed"] == "false" and "Show the expert&#x27;s choice on the board" in html
    assert replay_analysis.best_view(rs) is None
    replay_analysis.toggle_best(rs)
    view = rs.view()
    assert {t["sq"] for t in view["journal"][0]["tiles"]} == {"D7", "E7", "F7"}
    assert {t["sq"] for t in view["board"]} == {"D7", "E7", "F7"}  # the board before her move, plus MOT
    html = replay.html(rs, EN, board_html)
    assert buttons(html)["ra-show-best"]["aria-pressed"] == "true"
    assert html.count(", expert&#x27;s choice") == 3 and ", last move" not in html
    assert "Move 1 of 31: Zoé Lefèvre — the board shows the expert&#x27;s choice" in html
    rs.go(2)  # Bob's move: the board as played
    assert replay_analysis.best_view(rs) is None and "ra-show-best" not in buttons(
        replay.html(rs, EN, board_html)
    )
    rs.go(3)  # her expert's choice was the move played: nothing else to show
    assert replay_analysis.best_view(rs) is None


def test_the_replay_shows_the_whole_rack_the_seat_held_at_each_of_its_analysed_moves() -> None:
    moves = zoe_analysis()
    for i, m in enumerate(moves):
        m["rack"] = f"LNM{'ABCDEFGH'[i % 8]}ERT"
    rs = opened(RECORD, storage(kept=moves))
    rs.go(1)
    html = replay.html(rs, EN, board_html)
    assert "<dt>Your rack</dt><dd>LNMAERT</dd>" in html
    # The sheet's rack column: the whole rack on her analysed rows, the record's tiles played on Bob's.
    assert "<td>LNMAERT</td>" in html
    fr = replay.html(rs, Translator("fr"), board_html)
    assert "<dt>Votre chevalet</dt><dd>LNMAERT</dd>" in fr and "<dd>12,5</dd>" in fr


def test_an_analysis_kept_before_racks_were_served_shows_no_empty_rack_line() -> None:
    rs = opened(RECORD, storage(kept=zoe_analysis()))
    rs.go(1)
    assert "Your rack" not in replay.html(rs, EN, board_html)


def test_offline_a_replay_never_viewed_says_so_and_a_relay_down_says_that() -> None:
    """Issue 31: offline, the service worker has only the records already viewed; a fetch that fails while
    the browser knows it is offline is not the relay's fault (the message says which)."""
    from fake_browser import client_at

    for network, code in ((False, "replay_offline"), (True, "replay_network")):
        client, browser = client_at(f"/t/{TABLE}/replay")
        browser.network = network
        client.begin()
        browser.settle()  # no answer at all: the fetch fails
        tr = client.session.tr
        msg = browser.regions["replay-msg"]
        assert 'data-testid="replay-error"' in msg
        assert escape(tr.t(code)) in msg, msg
    assert "replay_offline" in STRINGS and all(STRINGS["replay_offline"])  # French and English


def test_offline_the_analysis_is_not_asked_for_and_says_why() -> None:
    from fake_browser import ORIGIN, client_at, ui

    client, browser = client_at(f"/t/{TABLE}/replay", storage())
    browser.network = False
    browser.answer("GET", f"/api/tables/{TABLE}/gcg", 200, RECORD)  # the service worker's copy
    client.begin()
    browser.settle()
    tr = client.session.tr
    panel = browser.regions["replay-view"]
    ask = buttons(panel)["replay-ask-analysis"]
    assert ask["aria-disabled"] == "true" and ask["aria-describedby"] == "ra-offline"
    assert escape(tr.t("ra_offline")) in panel
    ui(client, t="click", act="replay-analyse")
    browser.settle()
    assert not [r for r in browser.requests if r[0] == "POST"]  # nothing asked offline
    assert escape(tr.t("ra_offline")) in browser.regions["replay-view"]
    # The network is back: the same button asks (the click checks again).
    browser.network = True
    browser.answer("POST", f"/api/tables/{TABLE}/analysis", 200, {"seat": 0, "moves": zoe_analysis()})
    ui(client, t="click", act="replay-analyse")
    browser.settle()
    assert [r[1] for r in browser.requests if r[0] == "POST"] == [f"{ORIGIN}/api/tables/{TABLE}/analysis"]
    assert "replay-ask-analysis" not in browser.regions["replay-view"]
    assert tr.t("ra_offline") not in browser.regions["replay-view"]
