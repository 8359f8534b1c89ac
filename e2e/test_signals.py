"""Your turn, in real Chromium (issue 12, point 6): the tab title, the sound and its remembered mute, a
system notification for a hidden page (permission granted through the browser context), the countdown's
last seconds said once to screen readers."""

from __future__ import annotations

import urllib.request
from typing import Any

from e2e_ui import Relay, seat
from playwright.sync_api import expect

# Records what the page asks of the browser (the real Notification and play() still run), and lets the test
# hide the page: headless Chromium never does by itself.
SPY = """
window.__notes = []; window.__plays = [];
(function () {
  var N = window.Notification;
  if (N) {
    var W = function (t, o) { window.__notes.push({title: t, body: o && o.body}); return new N(t, o); };
    W.requestPermission = N.requestPermission.bind(N);
    Object.defineProperty(W, "permission", {get: function () { return N.permission; }});
    window.Notification = W;
  }
  var play = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function () { window.__plays.push(this.src); return play.call(this); };
  Object.defineProperty(Document.prototype, "hidden",
    {configurable: true, get: function () { return window.__lexioHidden === true; }});
})();
"""


def test_turn_title_sound_mute_notification_and_last_seconds(players: Any, relay: Relay) -> None:
    table_id = relay.create_table(turn_seconds=30)
    alice, bob = people = [players("Alice"), players("Bob")]
    bob.context.grant_permissions(["notifications"], origin=relay.url)
    bob.context.add_init_script(SPY)
    seat(people, relay.url, table_id)
    expect(alice.page).to_have_title("▶ Your turn — Lexio")
    expect(bob.page).to_have_title("Lexio")
    # Bob's page goes to the background; Alice passes: the turn comes to Bob.
    bob.page.evaluate("window.__lexioHidden = true")
    alice.pass_turn()
    expect(bob.page).to_have_title("▶ Your turn — Lexio")
    expect(alice.page).to_have_title("Lexio")
    bob.page.wait_for_function("window.__notes.length === 1")
    note = bob.page.evaluate("window.__notes[0]")
    assert note["title"] == "Lexio: your turn"
    assert "Alice, Bob" in note["body"] and " s to play" in note["body"]
    plays = bob.page.evaluate("window.__plays")
    assert len(plays) == 1 and plays[0].endswith("/turn.wav")
    # The sound is a small file the relay serves like the rest of the site.
    with urllib.request.urlopen(relay.url + "/turn.wav", timeout=5) as r:
        assert r.headers["Content-Type"] == "audio/wav"
        assert len(r.read()) < 8_000
    # Muted from the header: remembered by the browser, and no sound the next time.
    bob.page.evaluate("window.__lexioHidden = false")
    toggle = bob.page.locator("#sound-toggle")
    expect(toggle).to_have_text("♪ Sound: on")
    toggle.click()
    expect(toggle).to_have_text("♪ Sound: off")
    assert bob.page.evaluate("localStorage.getItem('lexio:sound')") == "off"
    bob.shot("130-sound-muted-header")
    bob.pass_turn()
    alice.wait_my_turn()
    alice.pass_turn()
    expect(bob.page).to_have_title("▶ Your turn — Lexio")
    assert bob.page.evaluate("window.__plays.length") == 1
    assert bob.page.evaluate("window.__notes.length") == 1  # visible page: no notification
    # The last 10 s of the 30 s turn are said once in the live region.
    announce = bob.page.locator("#t-announce")
    expect(announce).not_to_contain_text("seconds left")
    expect(announce).to_contain_text("10 seconds left", timeout=30_000)
    assert announce.get_attribute("aria-live") == "polite"
