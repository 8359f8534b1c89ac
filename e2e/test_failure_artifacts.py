"""A failing e2e test leaves what one needs to see why it failed without running it again: a Playwright trace
of each browser context and a screenshot of each open page, in its own folder, named in the run's summary.

Proved on a real failure, not a mock: pytest runs, in a subprocess, a tiny test file that uses this suite's
own fixtures (the relay, Debian Chromium, ``players``) and fails on purpose. Its artifacts go to a temp folder
(``LEXIO_E2E_ARTIFACTS``), so e2e/artifacts keeps only what the real suite left there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

E2E = Path(__file__).resolve().parent

# The suite's conftest loaded by its path and re-exported: its fixtures and hooks are then this temp folder's
# own, as they are e2e/'s, with nothing of the test file's put into e2e/.
CONFTEST = """
import importlib.util

_spec = importlib.util.spec_from_file_location("lexio_e2e_conftest", {path!r})
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
globals().update({{k: v for k, v in vars(_module).items() if not k.startswith("__")}})
"""

TESTS = """
from playwright.sync_api import expect


def test_fails_on_purpose(players):
    alice = players("Alice")
    alice.page.goto(alice.base + "/healthz")
    expect(alice.page.locator("#never-there")).to_be_visible(timeout=500)


def test_passes(players):
    bob = players("Bob")
    bob.page.goto(bob.base + "/healthz")
"""

# The project's pytest settings that matter here (pyproject.toml is not above the temp folder).
INI = """[pytest]
asyncio_mode = auto
asyncio_default_fixture_loop_scope = function
"""


def test_a_failing_e2e_test_leaves_a_trace_and_a_screenshot(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(CONFTEST.format(path=str(E2E / "conftest.py")))
    (tmp_path / "test_on_purpose.py").write_text(TESTS)
    (tmp_path / "pytest.ini").write_text(INI)
    artifacts = tmp_path / "artifacts"
    # This process's import path as is (the e2e helpers, tests/harness): the child imports what we import.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "LEXIO_E2E_"))}
    env |= {"LEXIO_E2E_ARTIFACTS": str(artifacts), "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    # One xdist worker, as make e2e runs them: the files are written by the worker, the summary naming them
    # is printed by the controller.
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "1", "-p", "no:cacheprovider",
         "--basetemp", str(tmp_path / "tmp"), "test_on_purpose.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "1 failed, 1 passed" in out, out

    folder = artifacts / "test_fails_on_purpose"
    shot = folder / "0-Alice-page0.png"
    assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), out
    with zipfile.ZipFile(folder / "0-Alice-trace.zip") as trace:
        events = [json.loads(line) for line in trace.read("trace.trace").splitlines() if line.strip()]
        frames = [n for n in trace.namelist() if n.endswith(".jpeg")]
    assert frames, "the trace has no screencast frame"
    # The trace holds the step that failed, which is what the trace viewer is opened for.
    assert any("#never-there" in json.dumps(e) for e in events), [e.get("type") for e in events]
    # A test that passed leaves nothing; the summary names the failed test's folder.
    assert sorted(p.name for p in artifacts.iterdir()) == ["test_fails_on_purpose"]
    assert "e2e artifacts" in out and str(folder) in out, out
