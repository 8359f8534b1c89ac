"""The Python runtime in the page: a returning visitor starts from the interpreter snapshot (issue 5)."""

from __future__ import annotations

import json
import re
import time
from typing import Any

from e2e_ui import Player
from playwright.sync_api import expect

STORED = """() => caches.open('lexio-snapshot').then(c => c.keys()).then(async keys => {
  if (keys.length !== 1) return 0;
  const r = await (await caches.open('lexio-snapshot')).match(keys[0]);
  return (await r.arrayBuffer()).byteLength;
})"""


def _stored_snapshot_bytes(p: Player, timeout: float = 30.0) -> int:
    """Wait until the page's origin holds exactly one interpreter snapshot; return its size."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        size = int(p.page.evaluate(STORED))
        if size > 1_000_000:
            return size
        p.page.wait_for_timeout(250)
    raise AssertionError("no interpreter snapshot was stored")


def _boot(p: Player) -> dict[str, Any]:
    raw = p.page.locator("#perf").get_attribute("data-boot")
    assert raw, "the app reported no boot timings"
    got: dict[str, Any] = json.loads(raw)
    return got


def test_returning_visitor_starts_from_the_snapshot_and_the_engine_previews(players: Any) -> None:
    alice = players("Alice")
    alice.open("/")
    assert _boot(alice)["snapshot"] is False  # first visit: a normal start, which takes the snapshot
    _stored_snapshot_bytes(alice)
    alice.page.close()
    alice.reopen(alice.base + "/?demo=1")
    assert _boot(alice)["snapshot"] is True
    # The engine and UI modules came from the snapshot: a tile placed with the keyboard is previewed.
    page = alice.page
    page.focus("#board")
    expect(page.locator("#sq-G7.cursor")).to_have_count(1)  # the focus puts the cursor on the source
    for letter in [c for c in alice.rack() if c.isalpha()][:2]:
        page.keyboard.press(letter)
    expect(page.locator(".sq.has-pending")).to_have_count(2)
    expect(page.get_by_test_id("preview-total")).to_have_text(re.compile(r"^\d+ points$"))


def test_a_damaged_snapshot_is_dropped_and_the_page_starts_normally(players: Any) -> None:
    alice = players("Alice")
    alice.open("/")
    _stored_snapshot_bytes(alice)
    alice.page.evaluate("""() => caches.open('lexio-snapshot').then(async c => {
        const [key] = await c.keys();
        await c.put(key, new Response(new Uint8Array(4096).fill(7)));
    })""")
    alice.page.close()
    alice.reopen(alice.base + "/")
    assert _boot(alice)["snapshot"] is False
    expect(alice.page.locator("#refresh-tables:visible")).to_have_count(1)
    # ...and a good snapshot replaces the damaged one.
    assert _stored_snapshot_bytes(alice) > 1_000_000
