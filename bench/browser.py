"""Browser benchmarks of the web client (Playwright + Debian Chromium).

Printed as ``name<TAB>value<TAB>unit``.

Serves the built site (web/dist; built first if missing) with the real relay (``lexio serve``) on a free
loopback port, then measures, as medians over several runs:
- first paint of the lobby and of a table link (static shell, before Python is ready);
- interactive: navigation → the app has answered a click made on the static shell as soon as it painted
  (the lobby's refresh button: queued by the page, handled by Python, patch applied), cold (fresh profile)
  and warm (persistent profile, revisit: HTTP cache, wasm code cache and the app's interpreter snapshot in
  the Cache API, see web/README.md; the number of warm starts that used it is printed); beside it the same
  runtime with an empty program (PyScript's worker, and a plain Pyodide worker: the floor without PyScript);
- the longest main-thread task after first paint (PerformanceObserver ``longtask``);
- bytes transferred on a first visit (all requests, workers included) and requests to other hosts;
- the live preview after a tile is placed (offline demo table, keyboard): engine time, worker time
  (event handled → patch handed to postMessage) and page time (DOM event → patch applied), p50 and p95;
  on the first visit also from a Chromium trace, the worker thread's CPU time over the same span (``?perf``
  makes the app mark each action's start and the hand-over of its patch; a mark carries wall and thread
  clocks), which tells the app's own cost apart from time the worker spent descheduled.
Numbers come from a shared 2-core machine: compare within a run.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "e2e"))
sys.path.insert(0, str(ROOT / "tests"))  # the process harness

from e2e_chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from harness.process import free_port  # noqa: E402

DIST = ROOT / "web" / "dist"
ARGS = list(CHROMIUM_ARGS)
RUNS = int(os.environ.get("LEXIO_BENCH_RUNS", "3"))

LONGTASKS = """
window.__long = [];
try { new PerformanceObserver(l => l.getEntries().forEach(e => window.__long.push([e.startTime, e.duration])))
      .observe({type: "longtask", buffered: true}); } catch (e) {}
"""


def emit(name: str, value: float | str, unit: str) -> None:
    print(
        f"{name}\t{value:.2f}\t{unit}" if isinstance(value, float) else f"{name}\t{value}\t{unit}", flush=True
    )


# The floor without PyScript: the same Pyodide in a plain module worker, running nothing.
BASELINE_PYODIDE_HTML = """<!doctype html><html><head><meta charset="utf-8"><script>
new Worker("/baseline-worker.mjs", {type: "module"}).onmessage = function () {
  performance.mark("lexio-ready"); document.documentElement.classList.add("ready"); };
</script></head><body><p>baseline</p></body></html>"""
BASELINE_PYODIDE_WORKER = """import {loadPyodide} from "/runtime/pyodide-314.0.7/pyodide.mjs";
const py = await loadPyodide({indexURL: "/runtime/pyodide-314.0.7/", packages: []});
py.runPython("import sys");
postMessage("ready");
"""
BASELINE_HTML = """<!doctype html><html><head><meta charset="utf-8">
<script type="module" src="/runtime/pyscript-core-0.7.31/core.js"></script></head>
<body><p>baseline</p>
<script type="py" worker src="/baseline.py" config="/baseline.json"></script></body></html>"""
BASELINE_PY = """from pyscript import window
window.performance.mark("lexio-ready")
window.document.documentElement.classList.add("ready")
"""


def site_with_baseline(tmp: Path) -> Path:
    """A copy of web/dist plus empty-program pages on the same runtime (PyScript, plain Pyodide workers)."""
    site = tmp / "site"
    shutil.copytree(DIST, site)
    (site / "baseline.html").write_text(BASELINE_HTML)
    (site / "baseline.py").write_text(BASELINE_PY)
    (site / "baseline-pyodide.html").write_text(BASELINE_PYODIDE_HTML)
    (site / "baseline-worker.mjs").write_text(BASELINE_PYODIDE_WORKER)
    (site / "baseline.json").write_text(json.dumps({"interpreter": "/runtime/pyodide-314.0.7/pyodide.mjs"}))
    return site


def start_relay(tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    lexio = Path(sys.executable).with_name("lexio")
    proc = subprocess.Popen(
        [
            str(lexio),
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--static",
            str(site_with_baseline(tmp)),
            "--db",
            str(tmp / "bench.sqlite3"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(base + "/healthz", timeout=1).read()
            return proc, base
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("relay did not start")


def new_table(base: str) -> str:
    req = urllib.request.Request(
        base + "/api/tables",
        data=b'{"public": false}',
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    return str(json.loads(urllib.request.urlopen(req, timeout=5).read())["path"])


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def page_timings(page: Page) -> dict[str, float]:
    got: dict[str, float] = page.evaluate("""() => {
      const fcp = performance.getEntriesByName('first-contentful-paint')[0];
      const ready = performance.getEntriesByName('lexio-ready')[0];
      const answered = performance.getEntriesByName('lexio-answered')[0];
      const fp = fcp ? fcp.startTime : 0;
      const all = window.__long || [];
      const longest = Math.max(0, ...all.filter(t => t[0] >= fp).map(t => t[1]));
      const before = Math.max(0, ...all.filter(t => t[0] < fp).map(t => t[1]));
      const boot = JSON.parse((document.getElementById('perf') || {dataset: {}}).dataset.boot || '{}');
      return {fcp: fp, ready: ready ? ready.startTime : -1, answered: answered ? answered.startTime : -1,
              longest: longest, before: before, n: all.length, snapshot: boot.snapshot ? 1 : 0};
    }""")
    return got


# A click on the static lobby's refresh button, made from the page as soon as it is parsed (Playwright's
# own click would wait for the loading overlay to go, adding its polling delay to the figure).
PROBE = """() => { const b = [...document.querySelectorAll('#refresh-tables')].find(e => e.offsetParent);
  if (!b) throw new Error('no visible refresh button in the static shell'); b.click(); }"""


def visit(page: Page, url: str, probe: bool = False) -> dict[str, float]:
    """Open ``url``; with ``probe``, click the lobby's refresh button as soon as the shell shows it."""
    page.goto(url, wait_until="domcontentloaded" if probe else "commit")
    if probe:
        page.evaluate(PROBE)
    page.wait_for_selector("html.ready", state="attached", timeout=60_000)
    if probe:
        page.wait_for_function("performance.getEntriesByName('lexio-answered').length > 0", timeout=60_000)
    page.wait_for_timeout(300)  # let trailing long tasks (if any) be observed
    return page_timings(page)


def cpu_from_trace(trace: bytes) -> tuple[list[float], list[float]]:
    """Wall and thread-CPU milliseconds of each marked action: lexio-action → lexio-handover (its patch
    handed to the page)."""
    data = json.loads(trace)
    events = data["traceEvents"] if isinstance(data, dict) else data
    marks = sorted(
        (e for e in events if e.get("name") in ("lexio-action", "lexio-handover") and "tts" in e),
        key=lambda e: (e["tid"], e["ts"]),
    )
    wall: list[float] = []
    cpu: list[float] = []
    for a, b in itertools.pairwise(marks):
        if a["name"] == "lexio-action" and b["name"] == "lexio-handover" and a["tid"] == b["tid"]:
            wall.append((b["ts"] - a["ts"]) / 1000)
            cpu.append((b["tts"] - a["tts"]) / 1000)
    return wall, cpu


def preview_figures(page: Page, base: str, prefix: str, tracer: Browser | None = None) -> None:
    """Place tiles with the keyboard on the offline demo table, many times; print the preview timings.

    With ``tracer`` (the page's browser), the run is traced and the worker's CPU time printed too."""
    visit(page, base + "/?demo=2&perf=1")
    page.wait_for_timeout(3000)  # past the start-up work
    rack = page.eval_on_selector_all("[data-testid=rack-tile] b", "els => els.map(e => e.textContent)")
    letters = [c for c in rack if c != "?"][:4] or ["E"]
    page.focus("#board")
    if tracer is not None:
        tracer.start_tracing(page=page, categories=["blink.user_timing"])
    for _ in range(15):
        page.keyboard.press("ArrowUp")  # first arrow puts the cursor on the source, then moves
        page.keyboard.press("Escape")
        page.evaluate("document.getElementById('board').focus()")
        for start in ("E6", "H8"):
            page.evaluate(f"document.getElementById('sq-{start}').click()")
            page.evaluate("document.getElementById('board').focus()")
            for c in letters:
                page.keyboard.press(c)
                page.wait_for_timeout(60)  # a fast typist, not a queue of events
            page.keyboard.press("Escape")
            page.wait_for_timeout(60)
    page.wait_for_timeout(500)
    page.keyboard.press("Escape")  # one more action so the last timings travel to the page
    page.wait_for_timeout(300)
    if tracer is not None:
        wall, cpu = cpu_from_trace(tracer.stop_tracing())
        if cpu:
            emit(f"{prefix}_worker_traced_wall_p95", pct(wall, 0.95), "ms")
            emit(f"{prefix}_worker_cpu_p50", pct(cpu, 0.5), "ms")
            emit(f"{prefix}_worker_cpu_p95", pct(cpu, 0.95), "ms")
    perf = page.evaluate("""() => { const p = document.getElementById('perf');
        return [p.dataset.engine, p.dataset.preview, p.dataset.e2e]; }""")
    engine_ms, worker_ms, page_ms = (json.loads(x or "[]") for x in perf)
    for name, values in (("engine", engine_ms), ("worker", worker_ms), ("page", page_ms)):
        if values:
            emit(f"{prefix}_{name}_p50", pct(values, 0.5), "ms")
            emit(f"{prefix}_{name}_p95", pct(values, 0.95), "ms")
    emit(f"{prefix}_samples", len(engine_ms), "count")
    page.close()


def main() -> int:
    if not (DIST / "index.html").exists():
        subprocess.run([sys.executable, str(ROOT / "web" / "build.py"), "--out", str(DIST)], check=True)
    tmp = Path(tempfile.mkdtemp(prefix="lexio-bench-"))
    relay, base = start_relay(tmp)
    try:
        table = new_table(base)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            cold: dict[str, list[float]] = {
                "fcp_lobby": [],
                "fcp_table": [],
                "ready": [],
                "longest": [],
                "n": [],
                "baseline": [],
                "baseline_pyscript": [],
                "answered": [],
            }
            transferred: list[int] = []
            foreign: set[str] = set()
            for _ in range(RUNS):
                ctx = browser.new_context(viewport={"width": 1280, "height": 800})
                ctx.add_init_script(LONGTASKS)
                sizes: list[int] = []

                def on_finished(req: Any, sizes: list[int] = sizes) -> None:
                    try:
                        s = req.sizes()
                        # Negative sizes mean "served from the HTTP cache": nothing transferred.
                        sizes.append(
                            max(0, int(s["responseBodySize"])) + max(0, int(s["responseHeadersSize"]))
                        )
                    except Exception:
                        pass

                ctx.on("requestfinished", on_finished)

                def guard(route: Any, foreign: set[str] = foreign) -> None:
                    url = route.request.url
                    if not url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:")):
                        foreign.add(url)
                    route.continue_()

                ctx.route("**/*", guard)
                page = ctx.new_page()
                t = visit(page, base + "/", probe=True)
                cold["answered"].append(t["answered"])
                cold["fcp_lobby"].append(t["fcp"])
                cold["ready"].append(t["ready"])
                cold["longest"].append(t["longest"])
                cold["n"].append(t["n"])
                transferred.append(sum(sizes))
                page2 = ctx.new_page()
                t2 = visit(page2, base + table)
                cold["fcp_table"].append(t2["fcp"])
                ctx.close()
                # The same runtime with an empty program, same conditions: the floor under our figure.
                for key, path in (
                    ("baseline", "/baseline-pyodide.html"),
                    ("baseline_pyscript", "/baseline.html"),
                ):
                    ctx = browser.new_context()
                    cold[key].append(visit(ctx.new_page(), base + path)["ready"])
                    ctx.close()
            emit("paint_lobby_fcp_median", statistics.median(cold["fcp_lobby"]), "ms")
            emit("paint_table_fcp_median", statistics.median(cold["fcp_table"]), "ms")
            emit("interactive_cold_median", statistics.median(cold["answered"]), "ms")
            emit("ready_cold_median", statistics.median(cold["ready"]), "ms")
            emit("interactive_cold_bare_pyodide_worker_median", statistics.median(cold["baseline"]), "ms")
            emit(
                "interactive_cold_bare_pyscript_worker_median",
                statistics.median(cold["baseline_pyscript"]),
                "ms",
            )
            emit("main_thread_longest_task_after_fcp_max", max(cold["longest"]), "ms")
            emit("main_thread_long_tasks_seen", sum(cold["n"]), "count")
            emit("first_visit_transferred_median", statistics.median(transferred) / 1e6, "MB")
            emit("requests_to_other_hosts", len(foreign), "count")
            for url in sorted(foreign):
                print(f"# foreign request: {url}", file=sys.stderr)

            # Warm: a returning visitor (persistent profile: HTTP cache + compiled wasm cache).
            profile = tmp / "profile"
            warm: dict[str, list[float]] = {"/": [], "/baseline-pyodide.html": [], "/baseline.html": []}
            snapshot_starts = 0
            ctx = p.chromium.launch_persistent_context(
                str(profile), executable_path=CHROMIUM, args=ARGS, viewport={"width": 1280, "height": 800}
            )
            for path in warm:
                page = ctx.new_page()
                visit(page, base + path)
                # Stay a while, as a player would: V8 writes its compiled-wasm cache after tiering up.
                page.wait_for_timeout(5000)
                page.close()
            for _ in range(RUNS):
                for path, values in warm.items():
                    page = ctx.new_page()
                    t = visit(page, base + path, probe=path == "/")
                    values.append(t["answered"] if path == "/" else t["ready"])
                    snapshot_starts += int(t["snapshot"]) if path == "/" else 0
                    page.close()
            # Live preview for a returning visitor.
            preview_figures(ctx.new_page(), base, "preview_returning")
            ctx.close()
            emit("interactive_warm_median", statistics.median(warm["/"]), "ms")
            emit("interactive_warm_snapshot_starts", f"{snapshot_starts}/{RUNS}", "count")
            emit(
                "interactive_warm_bare_pyodide_worker_median",
                statistics.median(warm["/baseline-pyodide.html"]),
                "ms",
            )
            emit(
                "interactive_warm_bare_pyscript_worker_median",
                statistics.median(warm["/baseline.html"]),
                "ms",
            )

            # Live preview, first visit (fresh profile).
            ctx = browser.new_context(viewport={"width": 1280, "height": 800})
            preview_figures(ctx.new_page(), base, "preview", tracer=browser)
            ctx.close()
            browser.close()
    finally:
        relay.terminate()
        relay.wait(timeout=10)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
