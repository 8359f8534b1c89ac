"""End-to-end helpers: the relay subprocess, one player's browser context, UI actions, table picking.

A module with a unique name (not conftest.py) so the tests can import it when pytest also collects tests/."""

from __future__ import annotations

import json
import os
import re
import shutil
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from e2e_artifacts import root as artifacts_root
from e2e_plan import Planner, features
from harness.process import RelayProcess, free_port
from playwright.sync_api import BrowserContext, Page, Route, expect

import engine

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "web" / "dist"
ARTIFACTS = artifacts_root()
SEED = 20261130
# Pyodide boots in each context (no shared cache between contexts): allow for a loaded 2-core machine.
BOOT_MS = 90_000
# The hosts a page may reach: the relay, by its address or as localhost (passkeys need a host name).
LOOPBACK = ("127.0.0.1", "localhost")
expect.set_options(timeout=20_000)


# -- relay -----------------------------------------------------------------------------------------
@dataclass
class Relay:
    """One ``python -m relay serve`` subprocess; ``start`` again after ``kill9`` keeps port and database."""

    db: Path
    words: Path
    log: Path
    static: Path
    port: int = field(default_factory=free_port)
    grace: float = 4.0
    proc: RelayProcess = field(init=False)

    def __post_init__(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LEXIO_")}
        env["LEXIO_LEXICON_CACHE"] = str(self.db.parent / "cache")
        args = [
            "--db",
            str(self.db),
            "--static",
            str(self.static),
            "--lexicon",
            str(self.words),
            "--test-seed",
            str(SEED),
            "--allow-test-seed",
            "--grace-seconds",
            str(self.grace),
            "--bot-delay-seconds",
            "0.2,0.4",
            # Tests pick tables whose seeded deal suits them: many creations from one address.
            "--create-burst",
            "1000",
            "--create-per-second",
            "100",
            # Every browser of the session is 127.0.0.1: the per-address budgets (proved in tests/relay)
            # would otherwise be shared by all tests and make one test's outcome depend on the others'.
            "--probe-burst",
            "1000",
            "--max-connections-per-address",
            "1000",
            "--max-pending-per-address",
            "1000",
            "--account-burst",
            "1000",
        ]
        self.proc = RelayProcess(args, log=self.log, port=self.port, env=env, cwd=ROOT, start_timeout=30)

    @property
    def url(self) -> str:
        return self.proc.url

    @property
    def local_url(self) -> str:
        """The same relay as http://localhost:PORT: browsers refuse passkeys (WebAuthn) on an IP address, and
        localhost is a secure context (issue 29's account screens are tested there)."""
        return self.proc.url.replace("://127.0.0.1:", "://localhost:", 1)

    def start(self) -> None:
        self.proc.start()

    def kill9(self) -> None:
        self.proc.kill9()

    def stop(self) -> None:
        self.proc.stop(10)

    def create_table(self, turn_seconds: int = 120, public: bool = False, variant: str | None = None) -> str:
        body: dict[str, object] = {"turn_seconds": turn_seconds, "public": public}
        if variant is not None:
            body["variant"] = variant
        req = urllib.request.Request(
            self.url + "/api/tables",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=5) as r:
            return str(json.loads(r.read())["id"])

    def sit(self, table_id: str, name: str) -> None:
        """Someone sits at the table through a bare socket, then goes (the seat is kept for a while)."""
        import asyncio
        from concurrent.futures import ThreadPoolExecutor

        import aiohttp

        async def go() -> None:
            async with (
                aiohttp.ClientSession() as session,
                session.ws_connect(f"{self.url}/ws/{table_id}", headers={"Origin": self.url}) as ws,
            ):
                await ws.send_json({"type": "join", "name": name})
                while (await ws.receive_json(timeout=10)).get("type") != "welcome":
                    pass

        # Playwright's own loop runs in this thread: the socket gets a thread (and a loop) of its own.
        with ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, go()).result()

    def gcg(self, table_id: str) -> str:
        with urllib.request.urlopen(f"{self.url}/api/tables/{table_id}/gcg", timeout=5) as r:
            return str(r.read().decode())


# -- players ---------------------------------------------------------------------------------------
@dataclass
class Guard:
    """Records every request a page makes to a host other than the loopback's (127.0.0.1, localhost)."""

    violations: list[str] = field(default_factory=list)

    def route(self, route: Route) -> None:
        url = route.request.url
        if self.allowed(url):
            route.fallback()
        else:
            self.violations.append(url)
            route.abort("blockedbyclient")

    def allowed(self, url: str) -> bool:
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about"):
            return True
        return parts.hostname in LOOPBACK


class Player:
    """One person: a browser context and its page, driven through the UI only."""

    def __init__(self, name: str, context: BrowserContext, base: str, guard: Guard) -> None:
        self.name = name
        self.context = context
        self.guard = guard
        self.base = base
        self.page: Page = context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    # navigation
    def open(self, path: str = "/") -> None:
        self.page.goto(self.base + path)
        self.page.wait_for_selector("html.ready", state="attached", timeout=BOOT_MS)

    def reopen(self, url: str) -> None:
        """A new page in the same context (same localStorage: the seat token) on ``url``."""
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(url)
        self.page.wait_for_selector("html.ready", state="attached", timeout=BOOT_MS)

    def table_url(self) -> str:
        return self.page.url

    def table_id(self) -> str:
        m = re.search(r"/t/([^/?#]+)", self.page.url)
        assert m, self.page.url
        return str(m.group(1))

    # reading the screen
    def rack(self) -> str:
        return "".join(self.page.locator("#rack [data-testid=rack-tile] b").all_inner_texts())

    def wait_my_turn(self, timeout: float = 20_000) -> None:
        expect(self.page.get_by_test_id("turn")).to_contain_text("Your turn", timeout=timeout)

    def scores(self) -> list[int]:
        return [int(x) for x in self.page.get_by_test_id("player-score").all_inner_texts()]

    def journal(self) -> list[str]:
        """The score sheet's rows (one per turn, oldest first)."""
        return self.page.locator("[data-testid=sheet-row]").all_inner_texts()

    def reserve_text(self) -> str:
        return self.page.get_by_test_id("reserve").inner_text()

    def shot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path))
        return path

    # acting with the mouse
    def place(self, tiles: list[tuple[str, str, bool]]) -> None:
        """Put tiles (square, letter, blank) on the board: click a rack tile, then its square."""
        for sq, letter, blank in tiles:
            want = "?" if blank else letter.upper()
            tile = (
                self.page.locator("#rack [data-testid=rack-tile]")
                .filter(has=self.page.locator("b", has_text=re.compile(f"^{re.escape(want)}$")))
                .first
            )
            tile.click()
            self.page.locator(f"#sq-{sq}").click()
            if blank:
                self.page.locator(f"#blank-dialog [data-act=blank-letter][data-arg={letter.upper()}]").click()
            expect(self.page.locator(f"#sq-{sq}.has-pending")).to_have_count(1)

    def submit(self) -> None:
        self.page.locator("#btn-submit").click()

    def pass_turn(self) -> None:
        self.page.locator("#btn-pass").click()
        self.page.locator("#pass-dialog #dialog-confirm").click()

    def swap(self, letters: str) -> None:
        self.page.locator("#btn-swap").click()
        dialog = self.page.locator("#swap-dialog")
        taken: set[int] = set()
        buttons = dialog.locator("[data-testid=swap-tile]")
        expect(buttons).to_have_count(len(self.rack()))
        texts = buttons.all_inner_texts()
        for ch in letters:
            i = next(i for i, t in enumerate(texts) if t.strip() == ch and i not in taken)
            taken.add(i)
            buttons.nth(i).click()
        expect(dialog.locator("[data-testid=swap-tile][aria-pressed=true]")).to_have_count(len(letters))
        dialog.locator("#dialog-confirm").click()


# -- game set-up and moves, through the UI ---------------------------------------------------------
def box(page: Page, selector: str) -> dict[str, float]:
    """The bounding box of the first element matching ``selector`` (it must be rendered)."""
    b = page.locator(selector).first.bounding_box()
    assert b is not None, selector
    return b


def seat(people: list[Player], relay_url: str, table_id: str, *, start: bool = True) -> None:
    """Each person opens the table link in turn (arrival order = list order); the first one starts."""
    for i, p in enumerate(people):
        p.open(f"/t/{table_id}")
        # The link opens the table's invitation (the remembered name filled in): Join seats the player.
        p.page.locator("#join-table").click()
        if i < 3:
            expect(people[0].page.locator("#seat-list li")).to_have_count(i + 1)
    if start and len(people) < 4:
        people[0].page.locator("#start-game").click()
    for p in people:
        expect(p.page.get_by_test_id("turn")).to_be_visible()


LAST = "[data-testid=last-action]"
"""The status line's account of the turn before (or of a try refused since)."""


def last_journal_line(p: Player) -> str:
    return p.page.locator(LAST).inner_text()


PLACED_RE = re.compile(r"^(?P<name>.+): (?P<words>.+) \(\+(?P<score>\d+)\)$")


def place_and_submit(
    p: Player, move: Any, watchers: list[Player], shot: str | None = None
) -> tuple[int, int]:
    """Make ``move`` (an engine Place) with the mouse; return (preview total, score the journal shows)."""
    p.wait_my_turn()
    p.place([(t.square, t.letter, t.blank) for t in move.tiles])
    total = int(p.page.get_by_test_id("preview-total").inner_text().split()[0])
    if shot:
        path = p.shot(shot)
        if os.environ.get("LEXIO_UPDATE_SCREENSHOT") == "1":
            # The README's picture (docs/screenshot.png): a game in progress, a play previewed.
            shutil.copyfile(path, ROOT / "docs" / "screenshot.png")
    before = len(p.journal())
    p.submit()
    expect(p.page.locator("[data-testid=sheet-row]")).to_have_count(before + 1)
    line = last_journal_line(p)
    m = PLACED_RE.match(line)
    assert m, f"expected a placement in the status line, got {line!r} (error: {error_text(p)!r})"
    for w in watchers:
        expect(w.page.locator(LAST)).to_have_text(line)
    return total, int(m.group("score"))


def error_text(p: Player) -> str:
    loc = p.page.locator("[data-testid=error], [data-testid=rejected]")
    return " | ".join(loc.all_inner_texts())


class NoPlay(AssertionError):
    """The player on turn has no placement (a rack such as NFYMMBV on the empty board)."""


def pick_table(
    relay: Relay | None,
    planner: Planner,
    names: list[str],
    want: Any,
    tries: int = 200,
    *,
    turn_seconds: int = 120,
    create: Callable[[], str] | None = None,
) -> tuple[str, Any]:
    """Create private tables (``create``, else on ``relay``) until the seeded deal of one suits
    ``want(state)`` (returns a truthy plan). A deal where ``want`` meets a rack with no play is skipped:
    the table id is random, so any test that plans a play must pick its deal this way."""
    for _ in range(tries):
        if create is not None:
            table_id = create()
        else:
            assert relay is not None
            table_id = relay.create_table(turn_seconds=turn_seconds)
        st = planner.deal(SEED, table_id, names, turn_seconds)
        try:
            plan = want(st)
        except NoPlay:
            continue
        if plan:
            return table_id, plan
    raise AssertionError(f"no seeded deal in {tries} tables suits the test")


def best(planner: Planner, st: engine.GameState, *, blanks: bool = True) -> engine.Place:
    """The top-scoring play for the seat on turn. Raises NoPlay."""
    moves = [m for m in planner.moves(st) if blanks or not any(t.blank for t in m.tiles)]
    if not moves:
        raise NoPlay("the planner found no play")
    return max(moves, key=lambda m: (features(st, m)["total"], -len(m.tiles)))


def board_on_page(page: Page) -> engine.Board:
    """The board as the page shows it (letters and blanks of the filled squares): a player's view of it."""
    tiles = page.evaluate(
        """() => [...document.querySelectorAll('#board .sq.filled')].map(s => [s.dataset.sq,
            s.querySelector('.tile b').textContent, s.querySelector('.tile').classList.contains('blank')])"""
    )
    board = engine.Board.empty("lexio")
    return (
        board.with_tiles(tuple(engine.Tile(sq, letter, blank) for sq, letter, blank in tiles))
        if tiles
        else board
    )


def short_game(relay: Relay, planner: Planner, alice: Player, bob: Player) -> tuple[str, engine.Place]:
    """Alice places the planner's best first move; then four passes end the game (two scoreless rounds)."""

    def first(st: engine.GameState) -> Any:
        moves = planner.moves(st)
        return max(moves, key=lambda m: (features(st, m)["total"], -len(m.tiles))) if moves else None

    table_id, move = pick_table(relay, planner, ["Alice", "Bob"], first)
    seat([alice, bob], relay.url, table_id)
    place_and_submit(alice, move, [bob])
    for p in (bob, alice, bob, alice):
        p.wait_my_turn()
        p.pass_turn()
    for p in (alice, bob):
        expect(p.page.locator("#end-title")).to_be_visible()
    return table_id, move


def pass_to_end(pages: list[Page], rounds: int = 60) -> None:
    """Whoever's turn it is passes, until the end screen shows (scoreless turns end a game)."""
    for _ in range(rounds):
        if pages[0].locator("#end-title").count():
            return
        for page in pages:
            # Read without waiting: the line goes when the game ends (the end screen replaces the table)
            # between a count and a read, and a read would wait for it.
            if any("Your turn" in text for text in page.get_by_test_id("turn").all_inner_texts()):
                page.locator("#btn-pass").click()
                page.locator("#pass-dialog #dialog-confirm").click()
                mine = page.locator('[data-testid=turn]:has-text("Your turn")')
                expect(mine).to_have_count(0)
                break
        else:
            pages[0].wait_for_timeout(200)
    expect(pages[0].locator("#end-title")).to_be_visible()
