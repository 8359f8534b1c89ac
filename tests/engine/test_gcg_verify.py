"""`python -m engine.gcg verify`: scores and running totals are recomputed and every slip is named."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine.gcg import main, parse_gcg, verify_gcg
from engine.moves import Place
from engine.scoring import WordScore

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "engine" / "corpus" / "gcg-classic"
CORPUS_FILES = sorted(CORPUS.glob("*.gcg"))


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    code = main(["verify", *args])
    return code, capsys.readouterr().out.splitlines()


def _copy_with(tmp_path: Path, source: Path, old: str, new: str) -> tuple[Path, int]:
    """Copy a corpus record with one line changed; returns the copy and the 1-based number of that line."""
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    hits = [i for i, line in enumerate(lines) if old in line]
    assert len(hits) == 1, f"{old!r} must occur once in {source.name}"
    lines[hits[0]] = lines[hits[0]].replace(old, new)
    copy = tmp_path / source.name
    copy.write_text("".join(lines), encoding="utf-8")
    return copy, hits[0] + 1


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_every_classic_corpus_game_replays_with_zero_mismatches(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _run(capsys, str(path), "--variant", "classic")
    assert out[-1].startswith("verified 1 file: ") and out[-1].endswith(" 0 problems"), out
    assert code == 0
    report = verify_gcg(parse_gcg(path.read_text(encoding="utf-8")), variant="classic")
    assert report.ok and report.placements > 0


def test_the_whole_corpus_at_once_counts_its_235_placements(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(capsys, *map(str, CORPUS_FILES), "--variant", "classic")
    assert code == 0
    assert out == ["verified 9 files: 268 moves, 235 placements, 0 problems"]


def test_recomputed_final_totals_match_the_last_recorded_totals() -> None:
    record = parse_gcg((CORPUS / "doug_v_emely.gcg").read_text(encoding="utf-8"))
    report = verify_gcg(record, variant="classic")
    assert dict(report.totals) == {"doug": 451, "emely": 345}


def test_a_wrong_placement_score_is_reported_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy, line = _copy_with(tmp_path, CORPUS / "doug_v_emely.gcg", "DONATES +82 148", "DONATES +83 149")
    code, out = _run(capsys, str(copy), "--variant", "classic")
    assert code == 1
    assert f"{copy}:{line}: recorded 83, computed 82 (score of 10B DONATES)" in out
    assert f"{copy}:{line}: recorded 149, computed 148 (running total of doug)" in out
    # One slip is reported on its own line only: the later totals, right for the real score, pass.
    assert len(out) == 3 and out[-1].endswith(" 2 problems")


def test_a_wrong_running_total_alone_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy, line = _copy_with(tmp_path, CORPUS / "guy_vs_bot.gcg", "J7 G.MEY +28 118", "J7 G.MEY +28 119")
    code, out = _run(capsys, str(copy), "--variant", "classic")
    assert code == 1
    assert out[:-1] == [f"{copy}:{line}: recorded 119, computed 118 (running total of bot)"]


def test_a_score_and_total_wrong_together_are_still_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A consistent record (total = previous + score) can still hold a wrong score: recomputing catches it.
    copy, line = _copy_with(
        tmp_path, CORPUS / "well_played_game.gcg", "H4 LIGA.URE +60 60", "H4 LIGA.URE +58 58"
    )
    code, out = _run(capsys, str(copy), "--variant", "classic")
    assert code == 1
    assert f"{copy}:{line}: recorded 58, computed 60 (score of H4 LIGA.URE)" in out


def test_a_blank_played_as_a_real_letter_changes_the_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # K5 RE.IgION: the blank is worth 0; a real G (2) in a word doubled twice is worth 8 more;
    # and the rack has no G.
    copy, line = _copy_with(tmp_path, CORPUS / "doug_v_emely.gcg", "RE.IgION +78", "RE.IGION +78")
    code, out = _run(capsys, str(copy), "--variant", "classic")
    assert code == 1
    assert f"{copy}:{line}: recorded 78, computed 86 (score of K5 RE.IGION)" in out
    assert any(f"{copy}:{line}: tiles " in o and "not on rack" in o for o in out)


def test_a_wrong_end_of_game_rack_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy, line = _copy_with(tmp_path, CORPUS / "vs_andy.gcg", "(DEINIR) +14 363", "(DEINIR) +12 361")
    code, out = _run(capsys, str(copy), "--variant", "classic")
    assert code == 1
    assert f"{copy}:{line}: recorded 12, computed 14 (rack (DEINIR))" in out


def test_a_withdrawn_phony_leaves_the_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # josh2 withdraws B2 DE.PONEd; if its tiles stayed, O6 sPEEDO's score would differ. Dropping the
    # withdrawal line must therefore break the replay.
    source = CORPUS / "josh2.gcg"
    copy, _ = _copy_with(tmp_path, source, ">Paula: ?DEENOP --  -74 224", "#note withdrawal removed")
    code, out = _run(capsys, str(copy), "--variant", "classic")
    assert code == 1
    assert len(out) > 1


def test_a_withdrawal_with_the_wrong_amount_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy, line = _copy_with(tmp_path, CORPUS / "noah_vs_peter.gcg", "EEQ --  -7 400", "EEQ --  -8 399")
    code, out = _run(capsys, str(copy), "--variant", "classic")
    assert code == 1
    assert f"{copy}:{line}: recorded -8, computed -7 (withdrawn score)" in out


def test_an_illegal_placement_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The opening moved off the centre square.
    copy, line = _copy_with(tmp_path, CORPUS / "doug_v_emely.gcg", "8D WINDY +32 32", "2D WINDY +32 32")
    code, out = _run(capsys, str(copy), "--variant", "classic")
    assert code == 1
    assert any(o.startswith(f"{copy}:{line}: illegal placement 2D WINDY: missing_source") for o in out)


def test_a_classic_game_is_not_a_lexio_game(capsys: pytest.CaptureFixture[str]) -> None:
    # Without --variant and without a #variant pragma the board is Lexio's: a 15x15 game cannot replay.
    code, out = _run(capsys, str(CORPUS / "doug_v_emely.gcg"))
    assert code == 1
    assert not out[-1].endswith(" 0 problems")


def test_a_variant_pragma_that_disagrees_with_the_option_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "#variant lexio\n" + (CORPUS / "vs_andy.gcg").read_text(encoding="utf-8")
    copy = tmp_path / "tagged.gcg"
    copy.write_text(text, encoding="utf-8")
    code, out = _run(capsys, str(copy), "--variant", "classic")
    assert code == 1
    assert out[0] == f"{copy}:1: record says #variant lexio, verified as classic"


def test_a_line_that_is_not_gcg_is_reported_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy, line = _copy_with(tmp_path, CORPUS / "vs_andy.gcg", ">andy: UV C3 VU. +14 291", ">andy UV C3 VU.")
    code, out = _run(capsys, str(copy), "--variant", "classic")
    assert code == 1
    assert out[0].startswith(f"{copy}:{line}: GCG line {line}: ")


def test_an_unreadable_file_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.gcg"
    code, out = _run(capsys, str(missing), "--variant", "classic")
    assert code == 1
    assert out[0].startswith(f"{missing}:0: cannot read")


def test_the_lexicon_is_only_consulted_when_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = CORPUS / "vs_andy.gcg"
    words = tmp_path / "words.txt"
    # Every word of the game but two: the list is built from the game itself.
    played = {
        w.word
        for m in parse_gcg(record.read_text(encoding="utf-8")).moves
        if m.kind == "place"
        for w in _words_of(record, m.line)
    }
    assert {"GYP", "ZA"} <= played
    words.write_text("# a word list\n" + "\n".join(sorted(played - {"GYP", "ZA"})).lower() + "\n")
    code, out = _run(capsys, str(record), "--variant", "classic", "--lexicon", str(words))
    assert code == 1
    unknown = [o for o in out if "unknown word" in o]
    assert len(unknown) == 2
    assert unknown[0].startswith(f"{record}:3: unknown word(s) GYP")
    code, _ = _run(capsys, str(record), "--variant", "classic")
    assert code == 0


def _words_of(record: Path, line: int) -> list[WordScore]:
    """The words formed by the placement on ``line`` of a record, found by replaying it."""
    from engine.board import Board
    from engine.notation import parse_move
    from engine.scoring import analyse
    from engine.variants import get_variant

    board = Board.empty(get_variant("classic"))
    parsed = parse_gcg(record.read_text(encoding="utf-8"))
    for m in parsed.moves:
        if m.kind != "place":
            continue
        move = parse_move(f"{m.position} {m.word}", board)
        assert isinstance(move, Place)
        tiles = move.tiles
        breakdown = analyse(board, tiles)
        if m.line == line:
            return list(breakdown.words)
        board = board.with_tiles(tiles)
    raise AssertionError(line)


def test_the_module_runs_as_a_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "engine.gcg", "verify", *map(str, CORPUS_FILES[:2]), "--variant", "classic"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("0 problems")


def test_an_unknown_variant_pragma_is_reported_on_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "odd.gcg"
    copy.write_text("#player1 a A\n#variant hexagonal\n>a: AB G7 AB +4 4\n", encoding="utf-8")
    code, out = _run(capsys, str(copy))
    assert code == 1
    assert out[0].startswith(f"{copy}:2: unknown variant 'hexagonal'")


def test_a_gzipped_word_list_with_accents_is_read_like_the_tables_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import gzip

    record = tmp_path / "short.gcg"
    record.write_text(
        "#player1 a A\n#player2 b B\n>a: ETE 7F ETE +3 3\n>b: AS H5 AS. +4 4\n", encoding="utf-8"
    )
    words = tmp_path / "words.txt.gz"
    words.write_bytes(gzip.compress("été\nétés\n".encode()))
    code, out = _run(capsys, str(record), "--lexicon", str(words))
    assert code == 1
    # ETE is known ("été" once normalised); ASE is not. H5 is a letter x2 square: A 2 + S 1 + E 1.
    assert out[:-1] == [f"{record}:4: unknown word(s) ASE in H5 AS."]


def test_a_missing_word_list_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["verify", str(CORPUS_FILES[0]), "--variant", "classic", "--lexicon", str(tmp_path / "no.txt")]
    )
    assert code == 1
    assert "cannot read word list" in capsys.readouterr().err
