"""The replay viewer in real Chromium (issue 12, point 4): a recorded game opened through the file input,
stepped with buttons, keys and the slider; a record whose scores do not add up is refused with its line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from e2e_ui import ROOT
from playwright.sync_api import expect

from engine.gcg import parse_gcg

GOLDEN = ROOT / "tests" / "engine" / "golden" / "lexio-2p.public.gcg"


def test_replay_of_a_recorded_game_through_the_file_input(players: Any, tmp_path: Path) -> None:
    moves = parse_gcg(GOLDEN.read_text("utf-8")).moves
    n = len(moves)
    p = players("Alice")
    p.open("/replay")
    page = p.page
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.set_input_files("#gcg-file", str(GOLDEN))
    now = page.get_by_test_id("replay-now")
    expect(now).to_contain_text(f"Move {n} of {n}")
    expect(page.get_by_test_id("replay-row")).to_have_count(n)
    expect(page.locator("[data-testid=replay-row][aria-current=step]")).to_have_count(1)
    page.set_viewport_size({"width": 1280, "height": 800})
    p.shot("150-replay-1280")
    # Keyboard: Home, then one move forward.
    page.locator("#replay").focus()
    page.keyboard.press("Home")
    expect(now).to_have_text("Before the first move (lexio-2p.public.gcg)")
    expect(page.locator("#board .sq.filled")).to_have_count(0)
    page.keyboard.press("ArrowRight")
    expect(now).to_contain_text(f"Move 1 of {n}")
    first = moves[0]
    expect(page.locator("#board .sq.last-move")).to_have_count(len(first.word.replace(".", "")))
    expect(page.get_by_test_id("replay-score").first).to_contain_text(str(first.total))
    # Buttons.
    page.locator("#replay-next").click()
    expect(now).to_contain_text(f"Move 2 of {n}")
    page.locator("#replay-prev").click()
    page.locator("#replay-prev").click()
    expect(now).to_contain_text("Before the first move")
    expect(page.locator("#replay-prev")).to_be_disabled()
    page.locator("#replay-last").click()
    expect(now).to_contain_text(f"Move {n} of {n}")
    page.keyboard.press("End")
    # The slider.
    page.locator("#replay-slider").fill("10")
    expect(now).to_contain_text(f"Move 10 of {n}")
    expect(page.locator("[data-testid=replay-row]").nth(9)).to_have_attribute("aria-current", "step")
    page.set_viewport_size({"width": 375, "height": 667})
    p.shot("151-replay-375")
    # Nothing was sent anywhere: the file is read in the page.
    assert not [u for u in requests if "/api/" in u or "/ws/" in u], requests
    # A record whose scores do not add up: refused with the line and the reason, nothing else shown.
    bad = tmp_path / "bad.gcg"
    lines = GOLDEN.read_text("utf-8").splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith(">Bob:"))
    head, _, _ = lines[k].rpartition(" +")
    lines[k] = lines[k].replace(" +31 31", " +35 35")
    assert lines[k] != head
    bad.write_text("\n".join(lines) + "\n", "utf-8")
    page.set_input_files("#gcg-file", str(bad))
    err = page.get_by_test_id("replay-error")
    expect(err).to_contain_text(f"File refused (line {k + 1})")
    expect(err).to_contain_text("recorded 35, computed 31")
    expect(page.locator("#board")).to_have_count(0)
    expect(page.get_by_test_id("replay-row")).to_have_count(0)
