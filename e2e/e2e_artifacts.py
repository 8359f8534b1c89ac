"""What a failing e2e test leaves behind: a Playwright trace of each browser context it opened and a
screenshot of each page still open, in ``e2e/artifacts/<test-name>/`` (``$LEXIO_E2E_ARTIFACTS`` moves that
root).

The contexts are the project's own (conftest's ``players`` makes them from the session's browser), not
pytest-playwright's ``context``/``page`` fixtures, so its ``--tracing``/``--screenshot`` options never reach
them: this module does the same for ours. A trace cannot be started after the fact, so every context records
one from its start and it is written out only if the test failed (a passing test's is dropped with its
context). ``LEXIO_E2E_TRACE`` chooses how much is recorded (``trace_mode``).

Under pytest-xdist the files are written by the worker that ran the test; the folder travels to the
controller (which prints the summary) in the test's report, as a user property.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import Iterable
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext

ENV_ROOT = "LEXIO_E2E_ARTIFACTS"
ENV_TRACE = "LEXIO_E2E_TRACE"
DEFAULT_ROOT = Path(__file__).resolve().parent / "artifacts"
USER_PROPERTY = "e2e_artifacts"
BROWSERS = ("chromium", "firefox", "webkit")
# A screenshot must not hang the teardown of a test that failed because its page hangs.
SCREENSHOT_MS = 10_000


def root() -> Path:
    """Where artifacts go: the environment's choice first, so a test of this very mechanism (or CI) can keep
    them out of the work tree."""
    return Path(os.environ.get(ENV_ROOT) or DEFAULT_ROOT).resolve()


def trace_mode() -> str:
    """``screens`` (the default: the screencast, see start_trace for why not the DOM snapshots too), ``full``
    (screencast and DOM snapshots, e.g. to rerun a failure) or ``0`` (no trace)."""
    mode = os.environ.get(ENV_TRACE, "screens")
    return mode if mode in ("0", "full") else "screens"


def folder_for(node: pytest.Item) -> Path:
    """``<root>/<test name>``, the name made safe for a path. Parametrised ids keep their values but lose the
    browser's name that pytest-playwright adds to every test (there is only Chromium here)."""
    name = node.name
    if m := re.fullmatch(r"(.*?)\[(.*)\]", name):
        params = [p for p in m.group(2).split("-") if p not in BROWSERS]
        name = m.group(1) + (f"[{'-'.join(params)}]" if params else "")
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.") or "test"
    return root() / name[:200]


def start_trace(context: BrowserContext, title: str) -> bool:
    """Start recording ``context``; returns whether it records, which ``save`` needs to know.

    Every trace has the actions with their call logs and errors, console, network and the test's source;
    the screencast adds the viewer's filmstrip, DOM snapshots the page to inspect before and after each
    action. The whole suite on 2 cores, 2 workers: 9:42 without traces, 9:58 with the screencast, 11:52 with
    the snapshots as well (they store every response body, the Python runtime's included, in each context's
    trace). So the snapshots are for reruns (``LEXIO_E2E_TRACE=full``), not for every run."""
    mode = trace_mode()
    if mode == "0":
        return False
    context.tracing.start(title=title, screenshots=True, snapshots=mode == "full", sources=True)
    return True


def save(folder: Path, label: str, context: BrowserContext, traced: bool) -> list[Path]:
    """Screenshot every open page of ``context`` and write its trace, as ``<label>-...`` in ``folder``.

    Each step is on its own: a page that will not render or a context already gone still leaves the rest.
    Returns the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with contextlib.suppress(Exception):
        for i, page in enumerate(context.pages):
            path = folder / f"{label}-page{i}.png"
            with contextlib.suppress(Exception):
                page.screenshot(path=str(path), timeout=SCREENSHOT_MS)
                written.append(path)
    if traced:
        path = folder / f"{label}-trace.zip"
        with contextlib.suppress(Exception):
            context.tracing.stop(path=str(path))
            written.append(path)
    return written


def forget(folder: Path) -> None:
    """Drop what an earlier run of this test left, so the folder only ever shows the latest failure."""
    shutil.rmtree(folder, ignore_errors=True)


def sweep(traces_dir: Path) -> None:
    """Delete the recordings of contexts now closed (Playwright keeps them even when no trace is written:
    megabytes of screencast frames per test). ``resources/`` stays: it holds each response body once by its
    hash, so the next contexts' traces need not write the runtime's files again."""
    for path in traces_dir.iterdir():
        if path.name == "resources":
            continue
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def record(node: pytest.Item, folder: Path) -> None:
    """Tell the report (hence the controller under xdist) where this test's artifacts are."""
    node.user_properties.append((USER_PROPERTY, str(folder)))


def folders(reports: Iterable[pytest.TestReport]) -> list[str]:
    """The artifact folders named in ``reports``, each once, in order."""
    seen: dict[str, None] = {}
    for rep in reports:
        for key, value in rep.user_properties:
            if key == USER_PROPERTY:
                seen[str(value)] = None
    return list(seen)
