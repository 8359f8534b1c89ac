"""Issue 27, point 10: the replay page lists the games this browser played (kept in its localStorage at each
game's end) and offers a labelled file picker in the page's language."""

from __future__ import annotations

import json

from app import played, replay
from app.i18n import Translator
from app.lobby import own_table_ids
from test_web_rematch import at_table, ended
from web_helpers import T0, started

FR = Translator("fr")


def test_a_seat_keeps_its_game_once_when_it_ends() -> None:
    ui = at_table(ended(), 0, "P0")
    value = played.remember(ui, {}, T0)
    assert value is not None
    storage = {played.KEY: value}
    [game] = played.load(storage)
    assert game.table == "old" and game.names == ("P0", "P1") and game.seat == 0 and game.at == T0
    # The final scores, the racks left deducted, as the end screen shows them.
    state = ended()
    assert state.result is not None
    assert game.scores == tuple(state.result.scores) and game.winners == tuple(state.result.winners)
    assert played.remember(ui, storage, T0 + 5) is None  # seen again (a reload): kept once


def test_nothing_is_kept_before_the_end_nor_for_a_watcher() -> None:
    assert played.remember(at_table(started(), 0, "P0"), {}, T0) is None
    assert played.remember(at_table(ended(), None), {}, T0) is None


def test_the_newest_game_comes_first_and_the_list_is_bounded() -> None:
    old = [played.Played(f"t{i}", T0 - i, ("A", "B"), (1, 2), 0, (1,)).to_json() for i in range(played.KEEP)]
    ui = at_table(ended(), 1, "P1")
    value = played.remember(ui, {played.KEY: json.dumps(old)}, T0 + 1)
    assert value is not None
    games = played.load({played.KEY: value})
    assert len(games) == played.KEEP and games[0].table == "old" and games[-1].table == f"t{played.KEEP - 2}"


def test_the_key_is_never_taken_for_a_seat_token() -> None:
    assert own_table_ids({played.KEY: "[]", "lexio:abc": "tok"}) == ["abc"]


def test_an_unreadable_list_is_an_empty_one() -> None:
    assert played.load({played.KEY: "{not json"}) == []
    assert played.load({played.KEY: '[{"table": 3}]'}) == []


def test_the_replay_page_links_each_game_to_its_replay_with_date_players_and_result() -> None:
    game = played.Played("abc", T0, ("Alice", "Robot 1"), (312, 280), 0, (0,))
    rs = replay.ReplayState(played=[game], links=("/lexio/", "?relay=x"))
    html = replay.frame(rs, FR)
    assert 'href="/lexio/t/abc/replay?relay=x" data-act="replay" data-arg="abc"' in html
    assert "Alice 312 · Robot 1 280" in html and "(Alice : gagnée)" in html
    assert '<h2 id="played-title">Vos parties</h2>' in html


def test_the_file_picker_is_a_translated_label_over_a_hidden_input() -> None:
    html = replay.frame(replay.ReplayState(), FR)
    assert '<input type="file" id="gcg-file" class="file-input"' in html
    assert (
        '<label for="gcg-file" class="button file-button" data-testid="gcg-pick">Ouvrir un fichier GCG'
        in html
    )
    assert "Aucune partie terminée dans ce navigateur" in html
