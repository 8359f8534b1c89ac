"""The end screen's analysis of your moves: one request per seat, the answer shown as a table."""

from __future__ import annotations

from app import render
from app.i18n import Translator
from test_web_rematch import at_table, buttons, ended
from web_helpers import T0

FR = Translator("fr")

ANALYSIS = {
    "type": "analysis",
    "seat": 0,
    "now": T0,
    "moves": [
        {
            "turn": 1,
            "rack": "AEIMNOS",
            "played": {"kind": "place", "notation": "G7 AS", "words": ["AS"], "score": 4, "equity": 3.0},
            "best": {
                "kind": "place",
                "notation": "G7 MAISON",
                "words": ["MAISON"],
                "score": 22,
                "equity": 20.5,
            },
            "lost": 17.5,
        },
        {
            "turn": 3,
            "rack": "EIMNO?Z",
            "played": {"kind": "pass", "notation": "-", "score": 0, "equity": -2.0},
            "best": {"kind": "pass", "notation": "-", "score": 0, "equity": -2.0},
            "lost": 0.0,
        },
    ],
}


def test_a_seat_asks_once_and_sees_each_move_with_the_experts_choice() -> None:
    ui = at_table(ended(), 0, "P0")
    html = render.end(ui, FR, "/gcg")
    assert "Analyser mes coups" in html and "disabled" not in buttons(html)["ask-analysis"]
    from app.analysis import request_analysis

    assert request_analysis(ui)
    assert not request_analysis(ui)  # a second click while waiting sends nothing more
    frames = [f for f in ui.outbox if f["type"] == "analyse"]
    assert len(frames) == 1 and set(frames[0]) == {"type", "id"}
    waiting = buttons(render.end(ui, FR, "/gcg"))["ask-analysis"]
    assert waiting["aria-disabled"] == "true" and waiting["aria-busy"] == "true" and "disabled" not in waiting
    ui.on_frame({**ANALYSIS, "id": frames[0]["id"]}, T0)
    html = render.end(ui, FR, "/gcg")
    assert "ask-analysis" not in buttons(html)
    assert html.count('data-testid="analysis-row"') == 2
    assert "G7 MAISON" in html and ">17,5</td>" in html and "le même" in html
    assert "1 coups sur 2 égalent le choix de l&#x27;expert" in html


def test_a_refusal_is_shown_and_a_spectator_has_no_button() -> None:
    ui = at_table(ended(), 0, "P0")
    from app.analysis import request_analysis

    request_analysis(ui)
    fid = next(f["id"] for f in ui.outbox if f["type"] == "analyse")
    ui.on_frame(
        {"type": "error", "id": fid, "code": "analysis_used", "message": "x", "params": {}, "now": T0}, T0
    )
    html = render.end(ui, FR, "/gcg")
    assert "déjà eu l&#x27;analyse" in html
    watcher = at_table(ended(), None)
    assert "ask-analysis" not in render.end(watcher, FR, "/gcg")


def test_each_analysed_move_shows_the_rack_the_seat_held() -> None:
    ui = at_table(ended(), 0, "P0")
    ui.analysis = [dict(m) for m in ANALYSIS["moves"]]  # type: ignore[misc]
    html = render.end(ui, FR, "/gcg")
    assert '<th scope="col">Votre chevalet</th>' in html
    assert '<td class="rack-held" data-testid="analysis-rack">AEIMNOS</td>' in html
    assert '<td class="rack-held" data-testid="analysis-rack">EIMNO?Z</td>' in html


def test_french_numbers_have_a_decimal_comma_and_equity_lost_no_minus_sign() -> None:
    ui = at_table(ended(), 0, "P0")
    moves = [dict(m) for m in ANALYSIS["moves"]]  # type: ignore[misc]
    moves[0]["lost"] = 783.1
    ui.analysis = moves  # type: ignore[assignment]
    html = render.end(ui, FR, "/gcg")
    assert ">783,1</td>" in html and "783.1" not in html
    assert "en tout : 783,1 points" in html
    # "Équité perdue" already says it is lost: no minus sign under it (a double negative).
    assert "-783" not in html and "\u2212783" not in html
    en = render.end(ui, Translator("en"), "/gcg")
    assert ">783.1</td>" in en


def test_the_translator_writes_numbers_in_the_pages_language() -> None:
    assert FR.num(783.1) == "783,1"
    assert FR.num(-176.8) == "\u2212176,8"
    assert FR.num(-0.01) == "0,0"
    assert FR.num(1234.5) == "1\u202f234,5"
    assert Translator("en").num(-176.8) == "\u2212176.8"
    assert Translator("en").num(1234.5) == "1,234.5"
