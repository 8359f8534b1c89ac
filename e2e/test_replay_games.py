"""Issue 27 in real Chromium: /replay lists the games this browser played and offers a translated, labelled
file picker (point 10); the arrow keys keep stepping after a click on a replay button (point 9); the replay
words each turn as the in-game sheet does (point 8)."""

from __future__ import annotations

import re
from typing import Any

from a11y import assert_no_violations
from e2e_plan import Planner
from e2e_ui import ARTIFACTS, Player, Relay, short_game
from playwright.sync_api import expect


def shot(p: Player, name: str) -> None:
    (ARTIFACTS / "issue27").mkdir(parents=True, exist_ok=True)
    p.shot("issue27/" + name)


def words(p: Player, selector: str) -> list[str]:
    return p.page.locator(f"{selector} td.words").all_inner_texts()


def test_the_replay_page_lists_this_browsers_games_and_its_keys_survive_a_click(
    players: Any, relay: Relay, planner: Planner
) -> None:
    alice, bob = players("Alice"), players("Bob")
    table_id, _ = short_game(relay, planner, alice, bob)
    in_game = words(alice, "[data-testid=sheet-row]:not([data-kind=end])")
    # Point 6: emoji typed in the chat are drawn (the shipped font's subset), not as empty boxes.
    alice.page.locator("#chat-input").fill("Bien joué \U0001f44d\U0001f389")
    alice.page.locator("#chat-send").click()
    msg = bob.page.get_by_test_id("chat-msg").filter(has_text="Bien joué")
    expect(msg).to_be_visible()
    loaded = bob.page.evaluate(
        """async () => { await document.fonts.ready;
             return [...document.fonts].filter(f => f.family.includes('Noto Emoji') && f.status === 'loaded')
                                       .length; }"""
    )
    assert loaded >= 1, "the emoji font was not used for the chat's emoji"
    msg.scroll_into_view_if_needed()
    shot(bob, "13-chat-emoji-1280")
    # The same account of each turn in the replay as on the sheet (never the GCG's dots).
    alice.page.locator("#replay-link").click()
    page = alice.page
    expect(page.get_by_test_id("replay-row")).to_have_count(len(in_game) + 2)  # + the racks left
    assert words(alice, "[data-testid=replay-row]")[: len(in_game)] == in_game
    assert not [w for w in in_game if "." in w]
    # Point 9: a click on « First (disabled at once) leaves the arrow keys working.
    now = page.get_by_test_id("replay-now")
    page.locator("#replay-first").click()
    expect(now).to_contain_text("Before the first move")
    page.keyboard.press("ArrowRight")
    expect(now).to_contain_text("Move 1 of")
    page.locator("#replay-next").click()
    expect(now).to_contain_text("Move 2 of")
    page.keyboard.press("ArrowLeft")
    expect(now).to_contain_text("Move 1 of")
    page.keyboard.press("End")
    expect(page.locator("#replay-last")).to_be_disabled()
    page.keyboard.press("Home")
    expect(now).to_contain_text("Before the first move")
    # Point 10: /replay, in French, lists the game this browser played, and opens it.
    alice.open("/replay")
    page.locator("#lang-switch").click()
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    game = page.get_by_test_id("played-game")
    expect(game).to_have_count(1)
    expect(game).to_have_attribute("data-table", table_id)
    expect(game).to_contain_text("Alice")
    expect(game).to_contain_text("Bob")
    expect(game.locator("time")).to_have_text(re.compile(r"^\d\d/\d\d/\d{4} \d\d:\d\d$"))
    # The file picker speaks French: a visible label button, the browser's own one hidden.
    pick = page.get_by_test_id("gcg-pick")
    expect(pick).to_have_text("Ouvrir un fichier GCG")
    expect(page.get_by_label("Ouvrir un fichier GCG")).to_have_attribute("type", "file")
    assert page.locator("#gcg-file").evaluate("e => getComputedStyle(e).opacity") == "0"
    page.set_viewport_size({"width": 1280, "height": 800})
    shot(alice, "10-replay-list-1280")
    assert_no_violations(page, "/replay (fr) at 1280x800")
    page.set_viewport_size({"width": 375, "height": 667})
    shot(alice, "11-replay-list-375")
    assert_no_violations(page, "/replay (fr) at 375x667")
    # The keyboard reaches the picker, and its focus is drawn on the label.
    page.locator("#gcg-file").focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    ring = pick.evaluate("e => getComputedStyle(e).outlineStyle")
    assert ring == "solid"
    page.set_viewport_size({"width": 1280, "height": 800})
    game.locator("a").click()
    expect(page).to_have_url(re.compile(rf"/t/{re.escape(table_id)}/replay$"))
    expect(page.get_by_test_id("replay-row")).to_have_count(len(in_game) + 2)
    expect(page.get_by_test_id("played-list")).to_have_count(0)  # the list was the way in, not the record
    shot(alice, "12-replay-of-a-listed-game-1280")
    assert_no_violations(page, "a listed game's replay (fr) at 1280x800")
    # Bob's browser lists it too; a browser that never played lists nothing.
    bob.open("/replay")
    expect(bob.page.get_by_test_id("played-game")).to_have_count(1)
    carol = players("Carol")
    carol.open("/replay")
    expect(carol.page.get_by_test_id("played-none")).to_be_visible()
