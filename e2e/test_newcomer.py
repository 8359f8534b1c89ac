"""A newcomer's way to a seat, in real Chromium (issue 11): the home screen, the invitation a link opens,
watching a game, computer players, focus."""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

import pytest
from e2e_ui import Player, Relay, seat
from playwright.sync_api import expect

SIZES = {"desktop": (1280, 800), "phone": (375, 667)}


def summary(relay: Relay, table_id: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{relay.url}/api/tables/{table_id}", timeout=5) as r:
        return dict(json.loads(r.read()))


def focused(p: Player) -> str:
    return str(p.page.evaluate("document.activeElement ? document.activeElement.id : ''"))


@pytest.mark.parametrize(("size", "lang"), [("desktop", "en"), ("phone", "fr")])
def test_home_only_the_create_button_or_enter_creates_a_table_and_own_tables_come_first(
    players: Any, relay: Relay, size: str, lang: str
) -> None:
    fr = lang == "fr"
    alice = players("Alice", viewport=SIZES[size], locale="fr-FR" if fr else "en-US")
    alice.context.add_init_script(f"localStorage.setItem('lexio:lang', '{lang}')")
    alice.open("/")
    page = alice.page
    expect(page.locator("#name-input")).to_have_value("Alice")
    # No name: Create says so next to the field (not in a banner) and creates nothing.
    page.locator("#name-input").fill("")
    page.locator("#create-table").click()
    expect(page.get_by_test_id("name-error")).to_contain_text("Choisissez un nom" if fr else "Choose a name")
    expect(page.get_by_test_id("notice")).to_have_count(0)
    page.locator("#name-input").fill("Alice")
    expect(page.get_by_test_id("name-error")).to_have_count(0)
    # Every other control of the card does its own job: the time list, the box, its label, blank space.
    page.locator("#turn-select").select_option("60")
    page.locator("#public-check").click()
    page.locator("label.check").click()
    page.locator("label.check").click()
    page.locator("#create-form h2").click()
    page.locator("#create-form").click(position={"x": 300, "y": 5})
    page.wait_for_timeout(500)
    assert "/t/" not in page.url
    expect(page.locator("#share-link")).to_have_count(0)
    expect(page.locator("#public-check")).not_to_be_checked()
    # Turn times read the same in the form and in the open list ("2 min", never "120 s").
    listed = relay.create_table(turn_seconds=120, public=True)
    relay.sit(listed, "Zoé")  # a table nobody sits at is not listed (issue 27)
    page.locator("#refresh-tables").click()
    row = page.get_by_test_id("open-table").first
    expect(row).to_contain_text("2 min")
    expect(page.get_by_test_id("table-list")).not_to_contain_text("120 s")
    # Enter in the name field creates the table, with the chosen time and privacy.
    page.locator("#name-input").press("Enter")
    expect(page.locator("#share-link")).to_be_visible()
    table_id = alice.table_id()
    s = summary(relay, table_id)
    assert s["turn_seconds"] == 60 and s["public"] is False and table_id != listed
    # Back home, the player's own table comes first, with Resume.
    page.locator("#home-link").click()
    mine = page.get_by_test_id("my-table")
    expect(mine).to_have_count(1)
    expect(mine).to_contain_text("Alice")
    expect(mine).to_contain_text("1 min")
    first = page.evaluate(
        "Array.from(document.querySelectorAll('.home .card'))"
        ".findIndex(c => c.querySelector('[data-testid=my-table]'))"
    )
    assert first == 0
    mine.locator("[data-act=resume]").click()
    expect(page.locator("#seat-list li")).to_have_count(1)
    expect(page.locator("#seat-list li")).to_contain_text("Alice (vous)" if fr else "Alice (you)")


def test_a_name_being_typed_survives_a_render_of_its_screen_made_before_the_typing_reached_python(
    players: Any, relay: Relay
) -> None:
    """A render computed before the keystrokes reached Python (the lobby refreshing as the page starts)
    must not put back the name the player has just changed: clearing it and pressing Create would
    otherwise create a table under the old name."""
    alice = players("Alice")
    alice.open("/")
    page = alice.page
    page.locator("#name-input").fill("Zed")
    # The home's region re-rendered as Python last knew it: the field's attribute still says "Alice".
    page.evaluate(
        """() => { const region = document.getElementById('name-input').parentElement.closest('[id]');
                   window.lexioPatch(JSON.stringify({r: {[region.id]: region.innerHTML}})); }"""
    )
    expect(page.locator("#name-input")).to_have_value("Zed")
    page.locator("#create-table").click()
    expect(page.locator("#seat-list li").first).to_contain_text("Zed")


@pytest.mark.parametrize(("size", "lang"), [("desktop", "fr"), ("phone", "en")])
def test_an_invitation_link_shows_the_table_and_a_taken_name_is_fixed_in_the_same_tab(
    players: Any, relay: Relay, size: str, lang: str
) -> None:
    fr = lang == "fr"
    alice = players("Alice")
    alice.open("/")
    alice.page.locator("#create-table").click()
    link = alice.page.locator("#share-link")
    expect(link).to_be_visible()
    url = link.input_value()
    bob = players("Bob", remember_name=False, viewport=SIZES[size], locale="fr-FR" if fr else "en-US")
    bob.page.goto(url)
    page = bob.page
    title = page.locator("#invite-title")
    expect(title).to_have_text("Alice vous invite" if fr else "Alice invites you", timeout=90_000)
    assert page.locator("h1").count() == 1
    expect(page.locator("#invite-title")).to_be_focused()
    info = page.get_by_test_id("invite-info")
    expect(info).to_contain_text("2 min")
    expect(info).to_contain_text("3 places libres" if fr else "3 free seats")
    expect(page.get_by_test_id("invite-seat")).to_have_text([re.compile(r"^Alice")])
    expect(page.get_by_test_id("notice")).to_have_count(0)
    bob.shot(f"70-invite-{size}-{lang}")
    expect(page.locator("#rules-link")).to_have_attribute("href", f"rules.{lang}.html")
    expect(page.locator("#rules-link")).to_have_text("Règles" if fr else "Rules")
    # A taken name (any case): refused next to the field; the tab stays usable.
    page.locator("#name-input").fill("alice")
    page.locator("#name-input").press("Enter")
    err = page.get_by_test_id("name-error")
    expect(err).to_contain_text("déjà pris" if fr else "already taken")
    expect(page.locator("#name-input")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#name-input")).to_be_focused()
    bob.shot(f"71-invite-taken-{size}-{lang}")
    # Fixed and joined again from the same tab, without reload.
    page.locator("#name-input").fill("Bob")
    expect(err).to_have_count(0)
    page.locator("#join-table").click()
    expect(alice.page.locator("#seat-list li")).to_have_count(2)
    expect(page.locator("#seat-list li").nth(1)).to_contain_text("Bob")
    expect(page.locator("#wait-title")).to_be_focused()


def test_a_running_game_is_watched_without_a_name_and_everyone_sees_the_watcher_count(
    players: Any, relay: Relay
) -> None:
    table_id = relay.create_table()
    alice, bob = people = [players("Alice"), players("Bob")]
    seat(people, relay.url, table_id)
    carol = players("Carol", remember_name=False, viewport=SIZES["phone"], locale="fr-FR")
    carol.page.goto(f"{relay.url}/t/{table_id}")
    page = carol.page
    expect(page.locator("#invite-title")).to_have_text("Partie en cours", timeout=90_000)
    expect(page.locator("#name-input")).to_have_count(0)
    page.locator("#watch-table").click()
    # The board, scores, clock, journal and unseen tiles; no rack, reserve or play controls.
    expect(page.locator("#board")).to_be_visible()
    expect(page.get_by_test_id("player")).to_have_count(2)
    expect(page.locator("#countdown")).to_be_visible()
    expect(page.get_by_test_id("unseen-total")).to_be_attached()
    expect(page.get_by_test_id("sheet")).to_be_attached()  # the journal, as a score sheet (issue 12)
    for hidden in ("#rack", "#btn-submit", "#btn-shuffle", "#btn-direction", "#btn-swap", "#btn-pass"):
        expect(page.locator(hidden)).to_have_count(0)
    expect(page.get_by_test_id("reserve")).to_have_count(0)
    expect(page.get_by_test_id("notice")).to_have_count(0)
    expect(page.get_by_test_id("watching")).to_contain_text("Vous regardez la partie")
    for p, text in ((alice, "1 watching"), (bob, "1 watching"), (carol, "1 spectateur")):
        expect(p.page.locator("#t-status [data-testid=watchers]")).to_have_text(text)
    carol.shot("72-watcher-phone")
    # The game ends (two rounds of passes): a new visitor opening the link sees the end screen.
    for k in range(4):
        people[k % 2].wait_my_turn()
        people[k % 2].pass_turn()
    expect(page.locator("#end-title")).to_be_visible()
    dave = players("Dave", remember_name=False)
    dave.page.goto(f"{relay.url}/t/{table_id}")
    expect(dave.page.locator("#end-title")).to_be_visible(timeout=90_000)
    expect(dave.page.get_by_test_id("final-row")).to_have_count(2)
    expect(dave.page.locator("#new-table")).to_have_count(0)


def test_computer_players_are_marked_and_removable_and_people_cannot_take_their_names(
    players: Any, relay: Relay
) -> None:
    table_id = relay.create_table()
    alice = players("Alice")
    alice.open(f"/t/{table_id}")
    alice.page.locator("#join-table").click()
    page = alice.page
    expect(page.locator("#seat-list li")).to_have_count(1)
    page.locator("#add-bot").click()
    bot = page.locator("#seat-list li[data-bot]")
    expect(bot).to_contain_text("Robot 1")
    expect(bot).to_contain_text("computer")
    # Start comes right after the seat list in tab order (after the Remove button of the last seat).
    bot.locator("[data-act=remove-bot]").focus()
    page.keyboard.press("Tab")
    assert focused(alice) == "start-game"
    # A person may not call themselves "Robot …": said as the name is typed, and by the table.
    rob = players("Robot 2", remember_name=False)
    rob.page.goto(f"{relay.url}/t/{table_id}")
    expect(rob.page.locator("#join-table")).to_be_visible(timeout=90_000)
    expect(rob.page.get_by_test_id("invite-seat")).to_have_text(["Alice (host)", "Robot 1 (computer)"])
    rob.page.locator("#name-input").fill("robot 2")
    expect(rob.page.get_by_test_id("name-error")).to_contain_text("computer players")
    rob.page.locator("#join-table").click()
    page.wait_for_timeout(300)
    expect(page.locator("#seat-list li")).to_have_count(2)
    # Seat 0 removes the computer player.
    bot.locator("[data-act=remove-bot]").click()
    expect(page.locator("#seat-list li")).to_have_count(1)
    rob.page.locator("#name-input").fill("Rob")
    rob.page.locator("#join-table").click()
    expect(page.locator("#seat-list li")).to_have_count(2)
    page.locator("#add-bot").click()
    expect(page.locator("#seat-list li")).to_have_count(3)
    page.locator("#start-game").click()
    expect(page.locator("[data-testid=player][data-seat='2'] th")).to_have_text("Robot 1 (computer)")
    expect(page.locator("#table-title")).to_be_focused()
    assert page.locator("h1").count() == 1


def test_dialogs_keep_the_focus_close_on_escape_and_give_it_back_and_the_board_shows_its_cursor(
    players: Any, relay: Relay
) -> None:
    table_id = relay.create_table()
    alice, _bob = people = [players("Alice"), players("Bob")]
    seat(people, relay.url, table_id)
    alice.wait_my_turn()
    page = alice.page
    expect(page.locator("#table-title")).to_be_focused()
    # Keyboard focus on the board shows the cursor square at once.
    page.locator("#btn-shuffle").focus()
    page.keyboard.press("Shift+Tab")
    for _ in range(20):
        if focused(alice) == "board":
            break
        page.keyboard.press("Shift+Tab")
    assert focused(alice) == "board"
    expect(page.locator("#sq-G7.cursor")).to_have_count(1)
    expect(page.locator("#board")).to_have_attribute("aria-activedescendant", "sq-G7")
    for opener, dialog in (("#btn-swap", "#swap-dialog"), ("#btn-pass", "#pass-dialog")):
        page.locator(opener).focus()
        page.keyboard.press("Enter")
        modal = page.locator(f"{dialog}[role=dialog][aria-modal=true]")
        expect(modal).to_have_count(1)
        expect(page.locator(f"{dialog} button").first).to_be_focused()
        # Tab and Shift+Tab stay inside the dialog.
        for key in ["Tab"] * 12 + ["Shift+Tab"] * 12:
            page.keyboard.press(key)
            assert page.evaluate(f"!!document.activeElement.closest('{dialog}')"), key
        page.keyboard.press("Escape")
        expect(page.locator(dialog)).to_have_count(0)
        expect(page.locator(opener)).to_be_focused()
    # Help: the drawer explains the reserve of refusals and the preview's promise; Rules opens the rules.
    page.locator("#d-help summary").click()
    expect(page.get_by_test_id("help-reserve")).to_contain_text("Reserve of refusals")
    expect(page.get_by_test_id("help-preview")).to_contain_text("does not promise")
    with page.expect_popup() as popup:
        page.locator("#rules-link").click()
    rules = popup.value
    expect(rules.locator("h1")).to_have_text("Rules of Lexio")
    expect(rules.locator("html")).to_have_attribute("lang", "en")
    assert rules.locator("p").count() > 20


SEEN = """window.__seen = []; (function poll() {
  const b = document.getElementById('load-progress'), l = document.getElementById('loading');
  const t = document.getElementById('load-text');
  if (b && l && t && !l.hidden) {
    const s = [b.value, l.getAttribute('data-phase'), t.innerText];
    const last = window.__seen[window.__seen.length - 1];
    if (!last || last[0] !== s[0] || last[1] !== s[1]) window.__seen.push(s);
  }
  if (!document.documentElement || !document.documentElement.classList.contains('ready')) setTimeout(poll, 5);
})();"""


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("fr", ("Téléchargement de Python…", "Démarrage de Python…")),
        ("en", ("Downloading Python…", "Starting Python…")),
    ],
)
def test_start_up_shows_the_runtime_bytes_received_then_python_starting_in_the_page_language(
    players: Any, lang: str, words: tuple[str, str]
) -> None:
    p = players("Alice", locale="fr-FR" if lang == "fr" else "en-US")
    p.context.add_init_script(f"localStorage.setItem('lexio:lang', '{lang}');" + SEEN)
    p.open("/")
    seen = p.page.evaluate("window.__seen")
    downloads = [v for v, phase, _ in seen if phase == "download"]
    # The bar moves with the bytes received (the runtime is ~10 MB decoded, the wasm alone ~9 MB).
    assert len(set(downloads)) >= 3 and max(downloads) >= 10, seen
    assert int(p.page.locator("#load-progress").get_attribute("data-got") or 0) > 5_000_000
    assert downloads == sorted(downloads), seen
    assert any(phase == "python" and v > max(downloads) for v, phase, _ in seen), seen
    other = ("Downloading", "Starting") if lang == "fr" else ("Téléchargement", "Démarrage")
    for _, phase, text in seen:
        assert text == (words[0] if phase == "download" else words[1]), seen
        assert not any(o in text for o in other), seen
    expect(p.page.locator("#loading")).to_be_hidden()
