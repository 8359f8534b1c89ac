"""End-to-end fixtures: a real relay subprocess on loopback, Debian Chromium, one browser context per player.

- The relay runs as ``python -m relay serve`` (the production entry) with a temp SQLite file, the built site
  (web/dist), the test word list (e2e/e2e_plan.py) and a test-only bag seed (``--test-seed`` is refused unless
  ``--allow-test-seed`` is given as well: relay/config.py).
- Every context routes ``**/*``: a request to any host but 127.0.0.1 (or localhost, where passkeys work) is
  aborted and recorded, and the test fails at teardown (the offline guard, issue 6 point 9). WebSockets are
  watched the same way.
- Tests are plain synchronous functions (sync Playwright cannot run inside an event loop); pytest-asyncio's
  auto mode leaves them alone.
- A failing test leaves a Playwright trace per context and a screenshot per open page in
  e2e/artifacts/<test-name>/ (e2e/e2e_artifacts.py); the run's summary lists those folders.
- Under pytest-xdist (``make e2e`` runs two workers) each session fixture exists once per worker: every worker
  has its own site copy, word list, relay (a free port, its own SQLite file and lexicon cache) and browser.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser

sys.path.insert(0, str(Path(__file__).resolve().parent))

import e2e_artifacts
from e2e_chromium import CHROMIUM, CHROMIUM_ARGS
from e2e_plan import Planner, build_word_list
from e2e_ui import DIST, LOOPBACK, Guard, Player, Relay


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.e2e)


# -- browser ---------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def traces_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The browser's working folder for traces: without one Playwright leaves an empty folder in /tmp for each
    context; here ``players`` empties it after each test (e2e_artifacts.sweep)."""
    return tmp_path_factory.mktemp("traces")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any], traces_dir: Path) -> dict[str, Any]:
    if not Path(CHROMIUM).exists():
        pytest.exit(
            f"Debian chromium not found at {CHROMIUM}: install it (`sudo apt-get install -y chromium`, or "
            "`make test` as root does it) or set LEXIO_CHROMIUM",
            returncode=3,
        )
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": list(CHROMIUM_ARGS),
        "traces_dir": str(traces_dir),
    }


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the built site taken at session start, so a rebuild of web/dist meanwhile (web/build.py
    replaces the hashed bundle) cannot break pages that are loading."""
    if not (DIST / "index.html").is_file():
        pytest.exit(
            "web/dist is not built: run `make web` (or .venv/bin/python web/build.py --out web/dist)", 3
        )
    copy = tmp_path_factory.mktemp("site") / "dist"
    shutil.copytree(DIST, copy)
    return copy


@pytest.fixture(scope="session")
def words_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("words") / "words.txt"
    build_word_list(path)
    return path


@pytest.fixture(scope="session")
def planner(words_file: Path) -> Planner:
    words = [w for w in words_file.read_text().split("\n") if w and not w.startswith("#")]
    return Planner(words)


def _make_relay(tmp: Path, words: Path, site: Path, grace: float = 4.0) -> Relay:
    tmp.mkdir(parents=True, exist_ok=True)
    return Relay(db=tmp / "lexio.sqlite3", words=words, log=tmp / "relay.log", static=site, grace=grace)


@pytest.fixture(scope="session")
def relay(tmp_path_factory: pytest.TempPathFactory, words_file: Path, site: Path) -> Iterator[Relay]:
    r = _make_relay(tmp_path_factory.mktemp("relay"), words_file, site)
    r.start()
    yield r
    r.stop()


@pytest.fixture
def own_relay(tmp_path: Path, words_file: Path, site: Path) -> Iterator[Relay]:
    """A relay of the test's own (for tests that kill it); a long grace so nobody times out meanwhile."""
    r = _make_relay(tmp_path / "relay", words_file, site, grace=30.0)
    r.start()
    yield r
    r.stop()


@pytest.fixture
def players(
    browser: Browser, relay: Relay, traces_dir: Path, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Player]]:
    """``players(name, base=None, ...)`` → a Player in its own context (English UI, name remembered).

    ``viewport`` (width, height) defaults to a 1280x900 desktop; ``touch`` makes it a touch screen;
    ``locale`` other than the default leaves the UI language to the app (the browser's, or the stored one)."""
    guards: list[Guard] = []
    made: list[Player] = []
    traced: list[bool] = []
    sockets: list[str] = []

    def make(
        name: str,
        base: str | None = None,
        remember_name: bool = True,
        viewport: tuple[int, int] = (1280, 900),
        touch: bool = False,
        locale: str | None = None,
    ) -> Player:
        ctx = browser.new_context(
            locale=locale or "en-US",
            viewport={"width": viewport[0], "height": viewport[1]},
            has_touch=touch,
        )
        traced.append(e2e_artifacts.start_trace(ctx, f"{request.node.nodeid} ({name})"))
        guard = Guard()
        guards.append(guard)
        ctx.route("**/*", guard.route)
        script = "try {" + (" localStorage.setItem('lexio:lang', 'en');" if locale is None else "")
        if remember_name:
            script += (
                f" if (!localStorage.getItem('lexio:name')) localStorage.setItem('lexio:name', {name!r});"
            )
        script += " } catch (e) {}"
        ctx.add_init_script(script)
        p = Player(name, ctx, base or relay.url, guard)
        p.page.on("websocket", lambda ws: sockets.append(ws.url))
        ctx.on("page", lambda pg: pg.on("websocket", lambda ws: sockets.append(ws.url)))
        made.append(p)
        return p

    yield make
    violations = [v for g in guards for v in g.violations]
    violations += [u for u in sockets if urlsplit(u).hostname not in LOOPBACK]
    page_errors = [e for p in made for e in p.errors]
    call = getattr(request.node, "rep_call", None)
    # The checks below fail the test too (at teardown): their failures deserve the same evidence.
    failed = (call is not None and call.failed) or bool(violations) or bool(page_errors)
    folder = e2e_artifacts.folder_for(request.node)
    e2e_artifacts.forget(folder)
    if failed and made:
        for i, (p, was_traced) in enumerate(zip(made, traced, strict=True)):
            e2e_artifacts.save(folder, f"{i}-{p.name}", p.context, was_traced)
        e2e_artifacts.record(request.node, folder)
    if failed:
        with contextlib.suppress(OSError):
            tail = relay.log.read_text(errors="replace").splitlines()[-40:]
            print(f"--- last lines of {relay.log} ---", *tail, sep="\n")
    for p in made:
        with contextlib.suppress(Exception):
            p.context.close()
    e2e_artifacts.sweep(traces_dir)
    assert not violations, f"requests beyond 127.0.0.1: {violations}"
    assert not page_errors, f"uncaught errors in the page: {page_errors}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Keeps the test's own outcome on the item: fixtures learn at teardown whether it failed."""
    outcome: Any = yield
    rep = outcome.get_result()
    if rep.when == "call":
        item.rep_call = rep  # type: ignore[attr-defined]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Names the artifact folders of the failed tests at the end of the run, where one looks first; under
    xdist this runs on the controller, which has every worker's reports (the folders are in them)."""
    stats = terminalreporter.stats.values()
    reports = [r for reps in stats for r in reps if isinstance(r, pytest.TestReport)]
    found = e2e_artifacts.folders(reports)
    if found:
        terminalreporter.section("e2e artifacts")
        for folder in found:
            terminalreporter.line(folder)
        terminalreporter.line("open a trace: .venv/bin/playwright show-trace FOLDER/<n>-<player>-trace.zip")
