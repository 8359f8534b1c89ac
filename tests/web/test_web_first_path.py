"""Issue 28: only what the first screen needs runs before the first answer (app.loader).

Each case runs in a fresh interpreter (this test process has imported everything already), with the
browser's finders installed as web/src/pyodide-boot.mjs installs them, a Client on fake doors
(tests/web/fake_browser.py) opened at an address, its first screen, and a click answered. Nothing is timed:
what is checked is which of the app's modules have run.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import json, sys
# CPython's site (the editable install's finder, through pathlib) imported these; the browser's Pyodide
# has none of them at start: forgotten, any import of them below shows.
for name in ("html", "html.entities", "urllib.parse", "ipaddress"):
    sys.modules.pop(name, None)
sys.path[:0] = [{web!r}, {root!r}, {tests!r}]
from app import loader
loader.install()
from fake_browser import client_at

client, browser = client_at({path!r})
browser.answer("GET", "/api/tables", 200, {{"tables": []}})
client.begin()
client.on_ui(json.dumps({{"t": "click", "act": "refresh", "ts": 1}}))
browser.settle()
present = set(sys.modules)
ours = [n for n in present if n.split(".")[0] in ("app", "engine", "wire")]
ran_before = sorted(n for n in ours if loader.is_loaded(n))
done = set()
while loader.prefetch_one(done) is not None:
    pass
client.on_ui(json.dumps({{"t": "click", "act": "refresh", "ts": 2}}))
browser.settle()
print(json.dumps({{
    "answered": bool(browser.patches),
    "ran_before": ran_before,
    "stdlib_before": sorted({{"argparse", "gzip"}} & present),
    "heavy_before": sorted({{"html", "html.entities", "urllib.parse", "ipaddress"}} & present),
    "ran_after": [n for n in loader.PREFETCH if loader.is_loaded(n)],
}}))
"""


def first_path(path: str) -> dict[str, object]:
    """Open the app at ``path`` in a fresh interpreter: what ran before the first answer, and what after
    the idle prefetch."""
    script = SCRIPT.format(
        web=str(ROOT / "web"), root=str(ROOT), tests=str(ROOT / "tests" / "web"), path=path
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, cwd=ROOT, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize("path", ["/", "/t/abc123"])
def test_no_module_off_the_first_path_runs_before_the_first_answer(path: str) -> None:
    from app import loader

    got = first_path(path)
    assert got["answered"], "the click was not answered"
    ran = set(got["ran_before"])  # type: ignore[arg-type]
    assert not ran & set(loader.DEFERRED), (
        f"ran before the first answer: {sorted(ran & set(loader.DEFERRED))}"
    )
    # The GCG parser's heavy standard modules come with it, not before.
    assert got["stdlib_before"] == []
    # Nor do html (its package builds html.entities' 2,000-entry table) and urllib.parse: app.markup has
    # the one function the app used of each. (The fake doors import them only inside their functions.)
    assert got["heavy_before"] == []
    # What the first screen needs did run (the check above is not vacuous).
    assert {"app.state", "app.render", "app.glue.client", "engine", "wire.client"} <= ran


def test_the_idle_prefetch_loads_every_module_off_the_first_path() -> None:
    from app import loader

    got = first_path("/")
    assert set(got["ran_after"]) == set(loader.PREFETCH)  # type: ignore[arg-type]


def test_a_deferred_screen_opened_first_loads_on_first_use() -> None:
    """The replay page as the first screen: its modules run when it is drawn, and it is drawn."""
    got = first_path("/replay")
    assert got["answered"]
    assert {"app.replay", "engine.gcg"} <= set(got["ran_before"])  # type: ignore[arg-type]


def test_the_deferred_and_prefetched_modules_exist() -> None:
    """A renamed module would silently stop being deferred (the finder matches names)."""
    import importlib.util

    from app import loader

    for name in (*loader.DEFERRED, *loader.PREFETCH):
        assert importlib.util.find_spec(name) is not None, name
