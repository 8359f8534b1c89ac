"""Issue 31, the installable app in real Chromium: no installability error (DevTools'
``Page.getInstallabilityErrors`` once the service worker controls the page), the app opening offline from
the worker's cache and saying so, a new deployment offered with "new version, reload" and taken on the
click, turn reminders turned on from My account and a push delivered to the worker shown as a notification
(DevTools' ``ServiceWorker.deliverPushMessage``), and its click opening the table; offline, the replay of a
game already viewed opens from the worker's ``lexio-replays`` cache, one never viewed says the relay does not
answer. axe on the banners and on My account's reminders at 1280x800 and 375x667; screenshots in
e2e/artifacts/issue31/.

Pages are opened at http://localhost:PORT: service workers (and passkeys) need a secure context."""

from __future__ import annotations

import base64
import importlib.util
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from accountui import look, registered
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from e2e_chromium import CHROMIUM, CHROMIUM_ARGS
from e2e_plan import Planner
from e2e_ui import ARTIFACTS, DIST, ROOT, Relay, pass_to_end, seat, short_game
from playwright.sync_api import BrowserContext, BrowserType, Page, expect

from engine.gcg import parse_gcg

SHOTS = ARTIFACTS / "issue31"


def _web_build() -> Any:
    spec = importlib.util.spec_from_file_location("lexio_web_build_sw", ROOT / "web" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def deployed(tmp_path: Path, words_file: Path) -> Iterator[tuple[Relay, Path]]:
    """A relay of the test's own serving its own copy of web/dist, which the test deploys anew."""
    site = tmp_path / "site"
    shutil.copytree(DIST, site)
    (tmp_path / "relay").mkdir()
    r = Relay(db=tmp_path / "relay" / "db.sqlite3", words=words_file, log=tmp_path / "relay.log", static=site)
    r.start()
    yield r, site
    r.stop()


def _controlled(page: Page) -> None:
    expect(page.locator("html.ready")).to_have_count(1, timeout=60_000)
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=60_000)


def _redeploy(site: Path) -> str:
    """A new build's content (the shell changed) and the worker made again over it: its new cache name."""
    index = site / "index.html"
    index.write_text(
        index.read_text().replace(
            "<title>Lexio</title>", '<title>Lexio</title><meta name="lexio-test" content="v2">'
        )
    )
    for sibling in (*site.glob("index.html.*"), *site.glob("sw.js.*")):
        sibling.unlink()  # the relay would serve the old precompressed copies
    version = json.loads((site / "manifest.json").read_text())["build"]
    return str(_web_build().write_service_worker(site, "/", version))


def test_installable_offline_and_a_new_version(
    browser_type: BrowserType, deployed: tuple[Relay, Path], tmp_path: Path
) -> None:
    relay, site = deployed
    # A profile on disk: Chromium does not install from an incognito context ("in-incognito"), which
    # Playwright's new_context() is.
    ctx: BrowserContext = browser_type.launch_persistent_context(
        str(tmp_path / "profile"),
        executable_path=CHROMIUM,
        args=list(CHROMIUM_ARGS),
        locale="en-US",
        viewport={"width": 1280, "height": 800},
    )
    ctx.add_init_script("try { localStorage.setItem('lexio:lang', 'en'); } catch (e) {}")
    errors: list[str] = []
    page = ctx.pages[0] if ctx.pages else ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(relay.local_url + "/")
        _controlled(page)
        cdp = ctx.new_cdp_session(page)
        assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["errors"] == [] and manifest["url"].endswith("/app.webmanifest")
        keys = page.evaluate("caches.keys()")
        shell_caches = [k for k in keys if k.startswith("lexio-shell-")]
        assert len(shell_caches) == 1, keys

        # Offline: the shell, the runtime and the bundle come from the worker; the page says it is offline.
        ctx.set_offline(True)
        page.reload()
        expect(page.locator("html.ready")).to_have_count(1, timeout=60_000)
        note = page.get_by_test_id("net-offline")
        expect(note).to_contain_text("Offline")
        expect(page.locator("#create-table")).to_be_visible()
        look(page, SHOTS, "01-offline", french=True)
        expect(note).to_contain_text("Offline")  # said again in the language switched back to
        ctx.set_offline(False)
        expect(note).to_be_empty()

        # A new deployment: the next visit is served by the old worker, the new one waits, the page says so.
        new_cache = _redeploy(site)
        assert new_cache not in shell_caches
        page.reload()
        expect(page.locator("html.ready")).to_have_count(1, timeout=60_000)
        expect(page.locator("meta[name=lexio-test]")).to_have_count(0)
        banner = page.get_by_test_id("update-ready")
        expect(banner).to_contain_text("A new version of Lexio is ready.", timeout=60_000)
        look(page, SHOTS, "02-new-version", french=True)
        expect(page.locator("#update-reload")).to_have_text("Reload")
        page.locator("#update-reload").click()
        expect(page.locator("meta[name=lexio-test]")).to_have_count(1, timeout=30_000)
        expect(page.locator("html.ready")).to_have_count(1, timeout=60_000)
        expect(page.get_by_test_id("update-ready")).to_be_empty()
        page.wait_for_function(
            f"caches.keys().then(k => k.includes({new_cache!r}) && !k.includes({shell_caches[0]!r}))"
        )
        assert not errors, errors
    finally:
        ctx.close()


def _fake_subscription() -> dict[str, object]:
    """What Chromium's PushSubscription.toJSON() gives, for a push service the relay accepts."""
    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )

    def b64(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    return {
        "endpoint": "https://fcm.googleapis.com/fcm/send/e2e-" + b64(point[:9]),
        "expirationTime": None,
        "keys": {"p256dh": b64(point), "auth": b64(bytes(range(16)))},
    }


# Headless Chromium here has no push service (no GCM sender: subscribe() is refused), so the page's
# PushManager is replaced by one that hands out a subscription of the same shape; the rest is real: the
# relay's key fetched, the subscription registered, the worker's `push` and its notification.
FAKE_PUSH = """
(() => {
  const sub = %s;
  let held = null;
  const make = (key) => ({endpoint: sub.endpoint, options: {applicationServerKey: key}, toJSON: () => sub,
    unsubscribe: () => { held = null; window.lexioUnsubscribed = true; return Promise.resolve(true); }});
  PushManager.prototype.subscribe = function (o) {
    window.lexioSubscribedWith = o; held = make(null); return Promise.resolve(held);
  };
  PushManager.prototype.getSubscription = function () { return Promise.resolve(held); };
})();
"""


def test_turn_reminders_on_and_a_push_shown(players: Any, relay: Relay) -> None:
    p, _nick = registered(players, relay, "Pia")
    page = p.page
    ctx = p.context
    ctx.grant_permissions(["notifications"], origin=relay.local_url)
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=60_000)
    # A real subscribe() first: say what this Chromium does (it has no push service).
    real = page.evaluate(
        """navigator.serviceWorker.ready.then(r => r.pushManager.getSubscription().then(() =>
             fetch('/api/push/key').then(x => x.json()).then(k =>
               r.pushManager.subscribe({userVisibleOnly: true, applicationServerKey: k.key})
                 .then(s => 'subscribed ' + s.endpoint, e => 'refused ' + e.name + ': ' + e.message))))"""
    )
    print("real pushManager.subscribe:", real)
    if real.startswith("subscribed"):
        page.evaluate(
            "navigator.serviceWorker.ready.then(r => r.pushManager.getSubscription())"
            ".then(s => s && s.unsubscribe())"
        )
    page.evaluate(FAKE_PUSH % json.dumps(_fake_subscription()))
    page.locator("#account-menu-btn").click()
    page.locator("#menu-account").click()
    expect(page.locator("#acct-title")).to_have_text("My account")
    state = page.get_by_test_id("push-state")
    expect(state).to_have_attribute("data-state", "off")
    look(page, SHOTS, "10-reminders-off", french=True, full_page=True)
    page.locator("#push-on").click()
    expect(page.get_by_test_id("account-done")).to_have_text(re.compile("Turn reminders are on"))
    expect(state).to_have_attribute("data-state", "on")
    key = page.evaluate("fetch('/api/push/key').then(x => x.json()).then(k => k.key)")
    assert page.evaluate("window.lexioSubscribedWith.userVisibleOnly") is True
    assert page.evaluate("window.lexioSubscribedWith.applicationServerKey") == key
    look(page, SHOTS, "11-reminders-on", french=True, full_page=True)

    # A push delivered to the worker (DevTools) is shown as a notification naming the table.
    cdp = ctx.new_cdp_session(page)
    found: list[dict[str, Any]] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: found.extend(e["registrations"]))
    cdp.send("ServiceWorker.enable")
    page.wait_for_timeout(300)
    reg = next(r for r in found if r["scopeURL"].startswith(relay.local_url) and not r.get("isDeleted"))
    payload = {
        "title": "Lexio",
        "body": "À vous de jouer à la table T1 : il reste 24 h.",
        "url": "/t/T1",
        "table": "T1",
    }
    # The list is read in the same call that waits for it. In one CI run the worker fetched the
    # notification's icon (it was being shown) yet a second, separate read found no notification; and
    # DevTools delivery is best effort, so the message is sent again (same tag: it replaces) if none comes.
    wait_shown = """() => new Promise((done) => {
      const t0 = Date.now();
      const poll = () => navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => {
        if (ns.length || Date.now() - t0 > 5000) {
          done(ns.map(n => ({title: n.title, body: n.body, tag: n.tag, data: n.data})));
        } else setTimeout(poll, 100);
      });
      poll();
    })"""
    shown: list[dict[str, Any]] = []
    for attempt in range(4):
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {
                "origin": relay.local_url + "/",
                "registrationId": reg["registrationId"],
                "data": json.dumps(payload),
            },
        )
        shown = page.evaluate(wait_shown)
        if shown:
            break
        print("no notification after delivery", attempt + 1)
    print("permission:", page.evaluate("Notification.permission"))
    assert shown == [{"title": "Lexio", "body": payload["body"], "tag": "lexio-T1", "data": {"url": "/t/T1"}}]

    page.locator("#push-off").click()
    expect(page.get_by_test_id("account-done")).to_have_text(re.compile("Turn reminders are off"))
    expect(state).to_have_attribute("data-state", "off")
    assert page.evaluate("window.lexioUnsubscribed") is True

    # Clicking it opens the table: DevTools cannot click a notification, so the worker is handed the
    # same event the browser would send (its own NotificationEvent over the shown notification).
    worker = next(w for w in ctx.service_workers if w.url.startswith(relay.local_url))
    worker.evaluate(
        """() => self.registration.getNotifications().then(([n]) =>
             self.dispatchEvent(new NotificationEvent('notificationclick', {notification: n})))"""
    )
    page.wait_for_url(relay.local_url + "/t/T1", timeout=30_000)
    expect(page.locator("html.ready")).to_have_count(1, timeout=60_000)
    left = worker.evaluate("() => self.registration.getNotifications().then(n => n.length)")
    assert left == 0, "the clicked notification is closed"


def test_offline_the_replays_already_viewed_still_open(players: Any, relay: Relay, planner: Planner) -> None:
    alice, bob = players("Alice"), players("Bob")
    viewed, _move = short_game(relay, planner, alice, bob)  # a placement, then four passes
    unseen = relay.create_table()  # a game Alice plays too, but whose replay she never opens
    seat([alice, bob], relay.url, unseen)
    pass_to_end([alice.page, bob.page])
    n = len(parse_gcg(relay.gcg(viewed)).moves)
    page = alice.page
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=60_000)
    # Online, on a page the worker controls from its navigation: the record goes through the worker.
    alice.open(f"/t/{viewed}/replay")
    _controlled(page)
    now, rows = page.get_by_test_id("replay-now"), page.get_by_test_id("replay-row")
    expect(now).to_contain_text(f"Move {n} of {n}")
    expect(rows).to_have_count(n)
    note = page.get_by_test_id("net-offline")
    expect(note).to_be_empty()
    expect(page.locator("#replay-ask-analysis")).not_to_have_attribute("aria-disabled", "true")

    alice.context.set_offline(True)
    page.reload()
    expect(page.locator("html.ready")).to_have_count(1, timeout=60_000)
    expect(note).to_contain_text("Offline: the app and the replays you have seen still open")
    expect(now).to_contain_text(f"Move {n} of {n}")
    expect(rows).to_have_count(n)
    expect(page.locator("#board .sq.filled")).not_to_have_count(0)
    # Alice played it: online the viewer offers to analyse her moves; offline it says why it cannot, and a
    # click asks nothing.
    ask = page.locator("#replay-ask-analysis")
    expect(ask).to_have_attribute("aria-disabled", "true")
    expect(page.get_by_test_id("replay-analysis-offline")).to_have_text(
        "Offline: the analysis needs the network."
    )
    ask.click(force=True)  # aria-disabled: Playwright would wait for it to be enabled
    expect(page.get_by_test_id("replay-analysis-error")).to_have_count(0)
    expect(ask).to_have_text("Analyse my moves")
    page.locator("#replay-first").click()
    expect(now).to_contain_text("Before the first move")
    expect(page.locator("#board .sq.filled")).to_have_count(0)
    look(page, SHOTS, "20-offline-replay", french=True)
    expect(note).to_contain_text("Offline")

    # A finished game whose replay this browser never opened: nothing kept, the viewer says so.
    alice.open(f"/t/{unseen}/replay")
    expect(note).to_contain_text("Offline")
    expect(page.get_by_test_id("replay-error")).to_have_text(
        "Offline: this game's replay is not available, it was never opened here."
    )
    expect(rows).to_have_count(0)
    expect(page.locator("#replay-ask-analysis")).to_have_count(0)
    alice.context.set_offline(False)
    expect(note).to_be_empty(timeout=30_000)
