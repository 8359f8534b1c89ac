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
- the returning visit with the service worker (issue 31): the warm visits above are made after the first
  visit installed web/dist/sw.js, so they are served by it (as are the empty-program pages, which are in its
  scope); ``interactive_returning_sw_median`` is the median over the app's warm visits whose navigation the
  worker handled (``navigator.serviceWorker.controller`` set and the navigation's ``workerStart`` > 0; how
  many were is printed), and its ratio is to the plain Pyodide worker's warm start *without* any service
  worker (the same empty page opened as http://localhost:PORT, another origin where none is registered,
  in the same persistent profile: ``…_bare_pyodide_worker_no_sw_median``);
- offline start of the installed app (issue 31): the same persistent profile set offline
  (``context.set_offline``, and the phone's network emulation made offline too, or it would let requests
  through), navigation → the page's offline note (``#net-note``) shows (``offline_start_median``) and →
  Python ready (``offline_ready_median``); each visit checks that the page and the service worker are
  refused by the network (``offline_start_network_refused``);
- the longest main-thread task after first paint (PerformanceObserver ``longtask``);
- bytes transferred on a first visit (all requests, workers included) and requests to other hosts;
- the live preview after a tile is placed (offline demo table, keyboard): engine time, worker time
  (event handled → patch handed to postMessage) and page time (DOM event → patch applied), p50 and p95
  of each visit, their medians over the runs (first visits: a fresh profile each; returning: the
  persistent one), and each visit's worker p95 (``…_worker_p95_visits``); on the first visits also from
  a Chromium trace, the worker thread's CPU time over the same span (``?perf`` makes the app mark each
  action's start and the hand-over of its patch; a mark carries wall and thread clocks), which tells the
  app's own cost apart from time the worker spent descheduled. The page dispatches the keys itself
  (:func:`preview_visit`); ``preview_cdp_…`` are first visits whose keys Playwright presses one by one,
  as before issue 28's sixth pass (its driver and this script then run beside the worker's answer).
Each start-up figure has its ratio to the bare Pyodide worker of the same run (``…_to_bare_pyodide``), and
the bytes of a first visit are compared the same way.

Then the same start-up figures under a phone-like profile (``phone_…``, issue 28): the renderer's CPU slowed
4x (every thread: see :class:`CpuThrottle`) and DevTools' "Fast 4G" network, cold and warm, with the bare
Pyodide worker under the same profile. ``LEXIO_BENCH_PROFILES=desktop`` (or ``phone``) runs one profile only,
``LEXIO_BENCH_PREVIEW=0`` skips the preview figures, ``LEXIO_BENCH_REQUESTS=1`` prints each cold first visit's
requests (app and bare runtime: start, duration, bytes) and the app's boot phases to stderr, and each warm
visit's phases.
Numbers come from a shared 2-core machine: compare within a run.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "e2e"))
sys.path.insert(0, str(ROOT / "tests"))  # the process harness

from e2e_chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from harness.process import free_port  # noqa: E402

DIST = Path(os.environ.get("LEXIO_BENCH_DIST") or ROOT / "web" / "dist")  # another build: compare two
ARGS = list(CHROMIUM_ARGS)
RUNS = int(os.environ.get("LEXIO_BENCH_RUNS", "3"))
# LEXIO_BENCH_REQUESTS=1: print (to stderr) every request of each cold first visit, app and bare runtime, with
# its start (ms after the navigation's first request), duration and bytes, and the app's boot phases.
REQUESTS = os.environ.get("LEXIO_BENCH_REQUESTS", "0") not in ("", "0")

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
      const nav = performance.getEntriesByType('navigation')[0];
      // Served by a service worker from the navigation on (not claimed later during the visit).
      const sw = navigator.serviceWorker && navigator.serviceWorker.controller !== null
                 && nav && nav.workerStart > 0;
      return {fcp: fp, ready: ready ? ready.startTime : -1, answered: answered ? answered.startTime : -1,
              longest: longest, before: before, n: all.length, snapshot: boot.snapshot ? 1 : 0,
              sw: sw ? 1 : 0};
    }""")
    return got


# A click on the static lobby's refresh button, made from the page as soon as it is parsed (Playwright's
# own click would wait for the loading overlay to go, adding its polling delay to the figure).
PROBE = """() => { const b = [...document.querySelectorAll('#refresh-tables')].find(e => e.offsetParent);
  if (!b) throw new Error('no visible refresh button in the static shell'); b.click(); }"""


def wait_in_page(page: Page, condition: str, timeout_s: float = 60.0) -> None:
    """Poll a JavaScript ``condition`` with plain evaluations. Not ``wait_for_function`` nor
    ``wait_for_selector``: their first call injects Playwright's selector engine into the page, ~10 ms of the
    main thread's CPU — under the phone-like profile, a 60 ms long task of the bench's own, just after the
    first answer. Raises ``TimeoutError`` after ``timeout_s``."""
    end = time.monotonic() + timeout_s
    while not page.evaluate(condition):
        if time.monotonic() > end:
            raise TimeoutError(f"{condition} still false after {timeout_s} s")
        time.sleep(0.02)


def visit(page: Page, url: str, probe: bool = False) -> dict[str, float]:
    """Open ``url``; with ``probe``, click the lobby's refresh button as soon as the shell shows it."""
    page.goto(url, wait_until="domcontentloaded" if probe else "commit")
    if probe:
        page.evaluate(PROBE)
    wait_in_page(page, "document.documentElement.classList.contains('ready')")
    if probe:
        wait_in_page(page, "performance.getEntriesByName('lexio-answered').length > 0")
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


# The keys of a preview visit, dispatched by the page itself (``preview_visit(driver="page")``): each step is
# (what, argument, ms to wait after it). A synthetic keydown on #board goes through the same handler as a
# real one (web/src/index.html reads only its key and modifiers).
PAGE_KEYS = """async (steps) => {
  const board = document.getElementById('board');
  for (const [what, arg, wait] of steps) {
    if (what === 'click') document.getElementById(arg).click();
    else if (what === 'focus') board.focus();
    else board.dispatchEvent(new KeyboardEvent('keydown', {key: arg, bubbles: true, cancelable: true}));
    await new Promise(r => setTimeout(r, wait));
  }
}"""


def preview_steps(letters: list[str]) -> list[tuple[str, str, int]]:
    """The preview visit's actions: 15 times, the cursor put on the source and dropped, then at two starting
    squares a click, ``letters`` typed 60 ms apart (a fast typist, not a queue of events) and Escape."""
    steps: list[tuple[str, str, int]] = []
    for _ in range(15):
        steps += [("key", "ArrowUp", 5), ("key", "Escape", 5), ("focus", "", 0)]
        for start in ("E6", "H8"):
            steps += [("click", f"sq-{start}", 5), ("focus", "", 0)]
            steps += [("key", c, 60) for c in letters]
            steps.append(("key", "Escape", 60))
    return steps


def preview_visit(
    page: Page, base: str, tracer: Browser | None = None, driver: str = "page"
) -> dict[str, float]:
    """Place tiles with the keyboard on the offline demo table, many times; the preview's timings of this
    visit (name → ms; ``samples``: how many keys). Closes ``page``.

    ``driver="page"``: the page dispatches the keys itself, in one evaluation; ``"cdp"``: Playwright presses
    each (DevTools protocol). On this 2-core machine each CDP key wakes Playwright's driver, the browser
    process and this script while the worker computes its answer, and the worker loses its core: traced, the
    slowest answers had a fraction of their wall time as CPU (3.06 ms wall, 0.39 ms CPU). The page's keys
    measure the worker without the harness beside it; the CDP figure is printed too (``preview_cdp_…``).
    With ``tracer`` (the page's browser), the visit is traced and the worker's CPU time measured too."""
    visit(page, base + "/?demo=2&perf=1")
    page.wait_for_timeout(3000)  # past the start-up work
    rack = page.eval_on_selector_all("[data-testid=rack-tile] b", "els => els.map(e => e.textContent)")
    letters = [c for c in rack if c != "?"][:4] or ["E"]
    page.focus("#board")
    if tracer is not None:
        tracer.start_tracing(page=page, categories=["blink.user_timing"])
    steps = preview_steps(letters)
    if driver == "page":
        page.evaluate(PAGE_KEYS, steps)
    else:
        for what, arg, wait in steps:
            if what == "key":
                page.keyboard.press(arg)
            elif what == "click":
                page.evaluate(f"document.getElementById('{arg}').click()")
            else:
                page.evaluate("document.getElementById('board').focus()")
            if wait >= 60:
                page.wait_for_timeout(wait)
    page.wait_for_timeout(500)
    page.keyboard.press("Escape")  # one more action so the last timings travel to the page
    page.wait_for_timeout(300)
    got: dict[str, float] = {}
    if tracer is not None:
        wall, cpu = cpu_from_trace(tracer.stop_tracing())
        if cpu:
            got["worker_traced_wall_p95"] = pct(wall, 0.95)
            got["worker_cpu_p50"] = pct(cpu, 0.5)
            got["worker_cpu_p95"] = pct(cpu, 0.95)
    perf = page.evaluate("""() => { const p = document.getElementById('perf');
        return [p.dataset.engine, p.dataset.preview, p.dataset.e2e]; }""")
    engine_ms, worker_ms, page_ms = (json.loads(x or "[]") for x in perf)
    for name, values in (("engine", engine_ms), ("worker", worker_ms), ("page", page_ms)):
        if values:
            got[f"{name}_p50"] = pct(values, 0.5)
            got[f"{name}_p95"] = pct(values, 0.95)
    got["samples"] = len(worker_ms)
    page.close()
    return got


def preview_figures(
    new_page: Callable[[], tuple[Page, Callable[[], None]]],
    base: str,
    prefix: str,
    tracer: Browser | None = None,
    driver: str = "page",
) -> None:
    """The preview's timings over ``RUNS`` visits (``new_page``: a page, and what to close after it): each
    figure's median over the visits, and each visit's worker p95 (``…_worker_p95_visits``). A single
    visit's p95 (the 10th slowest of 200 keys) moves by ±0.2 ms with the machine's load."""
    visits = []
    for _ in range(RUNS):
        page, done = new_page()
        visits.append(preview_visit(page, base, tracer, driver))
        done()
    for name in visits[0]:
        values = [v[name] for v in visits if name in v]
        unit = "count" if name == "samples" else "ms"
        emit(f"{prefix}_{name}", sum(values) if name == "samples" else statistics.median(values), unit)
    emit(f"{prefix}_worker_p95_visits", ",".join(f"{v['worker_p95']:.2f}" for v in visits), "ms")


# The phone-like profile (issue 28). Chromium's own CPU throttling (Emulation.setCPUThrottlingRate) slows the
# page's main thread only: it answers "only supported for pages, not workers" for the worker that runs Python,
# and V8's background compilation of the wasm is not slowed either. So the CPU is throttled the way cpulimit
# does it: every renderer process this bench started is stopped for 3/4 of each short period (all its threads,
# workers and compilers included). The network is DevTools' "Fast 4G" preset, set on each page's CDP session
# (it also shapes the page's workers' requests).
PHONE_CPU_RATE = 4
PHONE_PERIOD_S = 0.02
PHONE_NETWORK = {
    "offline": False,
    "latency": 60 * 2.75,  # ms of round trip, as DevTools' preset
    "downloadThroughput": 9e6 / 8 * 0.9,  # bytes/s
    "uploadThroughput": 1.5e6 / 8 * 0.9,
}
PHONE_VIEWPORT = {"width": 412, "height": 915}
DESKTOP_VIEWPORT = {"width": 1280, "height": 800}


def _descendants(root: int) -> list[int]:
    """The processes under ``root`` (from /proc: parent links)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rpartition(")")[2].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found: list[int] = []
    todo = [root]
    while todo:
        for c in children.get(todo.pop(), []):
            found.append(c)
            todo.append(c)
    return found


def _renderers() -> list[int]:
    """Chromium renderer processes started by this bench (its own descendants, by command line)."""
    out = []
    for pid in _descendants(os.getpid()):
        try:
            if b"--type=renderer" in Path(f"/proc/{pid}/cmdline").read_bytes():
                out.append(pid)
        except OSError:
            pass
    return out


class CpuThrottle:
    """While active, the renderers run ``1/rate`` of the time (SIGSTOP / SIGCONT by pid, in short periods)."""

    def __init__(self, rate: int) -> None:
        self.rate = rate
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    def __enter__(self) -> CpuThrottle:
        if self.rate > 1:
            self.thread = threading.Thread(target=self._run, daemon=True)
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join()

    def _signal(self, pids: list[int], sig: int) -> None:
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, sig)

    def _run(self) -> None:
        run_s = PHONE_PERIOD_S / self.rate
        pids: list[int] = []
        rounds = 0
        try:
            while not self.stop.is_set():
                if rounds % 5 == 0:  # a new page gets a new renderer: look again every few periods
                    pids = _renderers()
                rounds += 1
                self._signal(pids, signal.SIGSTOP)
                time.sleep(PHONE_PERIOD_S - run_s)
                self._signal(pids, signal.SIGCONT)
                time.sleep(run_s)
        finally:
            self._signal(_renderers(), signal.SIGCONT)


class Profile:
    """Desktop (no throttling) or phone-like: the name's prefix, the viewport, and what each page gets."""

    def __init__(self, phone: bool) -> None:
        self.phone = phone
        self.prefix = "phone_" if phone else ""
        self.viewport = PHONE_VIEWPORT if phone else DESKTOP_VIEWPORT

    def throttle(self) -> CpuThrottle:
        return CpuThrottle(PHONE_CPU_RATE if self.phone else 1)

    def new_page(self, ctx: BrowserContext, offline: bool = False) -> Page:
        """A page of ``ctx``; on the phone, its network shaped. ``offline``: the shaping says offline too
        (conditions set on this CDP session would otherwise let requests through a context set offline)."""
        page = ctx.new_page()
        if self.phone:
            cdp = ctx.new_cdp_session(page)
            cdp.send("Network.enable")
            cdp.send("Network.emulateNetworkConditions", {**PHONE_NETWORK, "offline": offline})
        return page


def count_bytes(ctx: BrowserContext, log: list[tuple[float, float, int, str]] | None = None) -> list[int]:
    """Bytes of every response the context receives (workers included), appended as they finish; with
    ``log``, each request's (start, duration in ms, bytes, url) too."""
    sizes: list[int] = []

    def on_finished(req: Any) -> None:
        try:
            s = req.sizes()
            # Negative sizes mean "served from the HTTP cache": nothing transferred.
            size = max(0, int(s["responseBodySize"])) + max(0, int(s["responseHeadersSize"]))
            sizes.append(size)
            if log is not None:
                t = req.timing
                log.append((t["startTime"], t["responseEnd"], size, req.url))
        except Exception:
            pass

    ctx.on("requestfinished", on_finished)
    return sizes


def print_requests(name: str, log: list[tuple[float, float, int, str]], boot: str = "") -> None:
    """The requests of one visit (LEXIO_BENCH_REQUESTS), in the order they started."""
    if not log:
        return
    t0 = min(start for start, _, _, _ in log)
    total = sum(n for _, _, n, _ in log)
    print(f"# requests of a cold visit: {name} ({total} bytes) {boot}", file=sys.stderr)
    for start, end, size, url in sorted(log):
        print(f"#   {start - t0:8.0f} ms {end:7.0f} ms {size:9d} B  {url}", file=sys.stderr)


def ratio(name: str, app: float, bare: float) -> None:
    emit(name, app / bare if bare > 0 else float("nan"), "x")


def startup_figures(
    p: Playwright, browser: Browser, base: str, table: str, tmp: Path, profile: Profile
) -> BrowserContext:
    """Cold and warm start-up of the app and of the bare runtimes under ``profile``; prints their figures.

    Returns the warm (persistent) context, still open, for the returning visitor's preview."""
    pre = profile.prefix
    cold: dict[str, list[float]] = {
        k: [] for k in ("fcp_lobby", "fcp_table", "ready", "longest", "n", "baseline", "baseline_pyscript")
    }
    cold["answered"] = []
    transferred: list[int] = []
    transferred_bare: list[int] = []
    foreign: set[str] = set()
    bare_pages = [("baseline", "/baseline-pyodide.html")]
    if not profile.phone:  # PyScript's empty worker: for the desktop figures only (the phone's are slow)
        bare_pages.append(("baseline_pyscript", "/baseline.html"))
    with profile.throttle():
        for _ in range(RUNS):
            ctx = browser.new_context(viewport=profile.viewport)
            ctx.add_init_script(LONGTASKS)
            log: list[tuple[float, float, int, str]] | None = [] if REQUESTS else None
            sizes = count_bytes(ctx, log)

            # Watched, not routed: Playwright turns Chromium's HTTP cache off in a context that routes, and
            # the service worker's install (its precache revalidates what the page just downloaded) would
            # then download the whole site again within the figure.
            def guard(request: Any, foreign: set[str] = foreign) -> None:
                url = request.url
                if not url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:")):
                    foreign.add(url)

            ctx.on("request", guard)
            page = profile.new_page(ctx)
            t = visit(page, base + "/", probe=True)
            if log is not None:
                boot = page.eval_on_selector("#perf", "e => e.dataset.boot || ''")
                print_requests(f"app, answered at {t['answered']:.0f} ms", log, boot)
            cold["answered"].append(t["answered"])
            cold["fcp_lobby"].append(t["fcp"])
            cold["ready"].append(t["ready"])
            cold["longest"].append(t["longest"])
            cold["n"].append(t["n"])
            transferred.append(sum(sizes))
            if not profile.phone:
                t2 = visit(profile.new_page(ctx), base + table)
                cold["fcp_table"].append(t2["fcp"])
            ctx.close()
            # The same runtime with an empty program, same conditions: the floor under our figure.
            for key, path in bare_pages:
                ctx = browser.new_context(viewport=profile.viewport)
                log = [] if REQUESTS else None
                sizes = count_bytes(ctx, log)
                cold[key].append(visit(profile.new_page(ctx), base + path)["ready"])
                if log is not None:
                    print_requests(f"{key}, ready at {cold[key][-1]:.0f} ms", log)
                if key == "baseline":
                    transferred_bare.append(sum(sizes))
                ctx.close()
    app_cold, bare_cold = statistics.median(cold["answered"]), statistics.median(cold["baseline"])
    emit(f"{pre}paint_lobby_fcp_median", statistics.median(cold["fcp_lobby"]), "ms")
    if cold["fcp_table"]:
        emit(f"{pre}paint_table_fcp_median", statistics.median(cold["fcp_table"]), "ms")
    emit(f"{pre}interactive_cold_median", app_cold, "ms")
    if profile.phone:
        emit(f"{pre}interactive_cold_median_s", app_cold / 1000, "s")
    emit(f"{pre}ready_cold_median", statistics.median(cold["ready"]), "ms")
    emit(f"{pre}interactive_cold_bare_pyodide_worker_median", bare_cold, "ms")
    if cold["baseline_pyscript"]:
        emit(
            f"{pre}interactive_cold_bare_pyscript_worker_median",
            statistics.median(cold["baseline_pyscript"]),
            "ms",
        )
    ratio(f"{pre}interactive_cold_to_bare_pyodide", app_cold, bare_cold)
    emit(f"{pre}main_thread_longest_task_after_fcp_max", max(cold["longest"]), "ms")
    emit(f"{pre}main_thread_long_tasks_seen", sum(cold["n"]), "count")
    app_bytes, bare_bytes = statistics.median(transferred), statistics.median(transferred_bare)
    emit(f"{pre}first_visit_transferred_median", app_bytes / 1e6, "MB")
    emit(f"{pre}first_visit_transferred_bare_pyodide_median", bare_bytes / 1e6, "MB")
    ratio(f"{pre}first_visit_transferred_to_bare_pyodide", app_bytes, bare_bytes)
    emit(f"{pre}requests_to_other_hosts", len(foreign), "count")
    for url in sorted(foreign):
        print(f"# foreign request: {url}", file=sys.stderr)
    ctx = warm_figures(p, base, tmp, profile)
    offline_figures(ctx, base, profile)
    return ctx


def warm_figures(p: Playwright, base: str, tmp: Path, profile: Profile) -> BrowserContext:
    """A returning visitor (persistent profile: HTTP cache, compiled wasm cache, the interpreter snapshot and,
    installed by the first visit, the service worker); prints the warm and returning-with-the-worker figures.

    Returns the persistent context, still open (its worker installed)."""
    pre = profile.prefix
    # name → address; "bare_no_sw": the plain Pyodide page on another origin, where no worker is registered.
    urls = {
        "app": base + "/",
        "bare": base + "/baseline-pyodide.html",
        "bare_no_sw": base.replace("//127.0.0.1:", "//localhost:", 1) + "/baseline-pyodide.html",
    }
    if not profile.phone:
        urls["bare_pyscript"] = base + "/baseline.html"
    warm: dict[str, list[float]] = {name: [] for name in urls}
    returning_sw: list[float] = []
    snapshot_starts = bare_sw = 0
    ctx = p.chromium.launch_persistent_context(
        str(tmp / f"{pre}profile"), executable_path=CHROMIUM, args=ARGS, viewport=profile.viewport
    )
    with profile.throttle():
        for url in urls.values():
            page = profile.new_page(ctx)
            visit(page, url)
            # Stay a while, as a player would: V8 writes its compiled-wasm cache after tiering up, the
            # app stores its interpreter snapshot, and its service worker installs.
            page.wait_for_timeout(5000 if not profile.phone else 12000)
            page.close()
        for _ in range(RUNS):
            for name, url in urls.items():
                page = profile.new_page(ctx)
                t = visit(page, url, probe=name == "app")
                if REQUESTS and name == "app":
                    boot = page.eval_on_selector("#perf", "e => e.dataset.boot || ''")
                    print(f"# warm visit, answered at {t['answered']:.0f} ms {boot}", file=sys.stderr)
                page.close()
                warm[name].append(t["answered"] if name == "app" else t["ready"])
                if name == "app":
                    snapshot_starts += int(t["snapshot"])
                    if t["sw"]:
                        returning_sw.append(t["answered"])
                bare_sw += int(t["sw"]) if name == "bare" else 0
    app_warm, bare_warm = statistics.median(warm["app"]), statistics.median(warm["bare"])
    emit(f"{pre}interactive_warm_median", app_warm, "ms")
    emit(f"{pre}interactive_warm_snapshot_starts", f"{snapshot_starts}/{RUNS}", "count")
    emit(f"{pre}interactive_warm_bare_pyodide_worker_median", bare_warm, "ms")
    emit(f"{pre}interactive_warm_bare_pyodide_worker_sw_served", f"{bare_sw}/{RUNS}", "count")
    if "bare_pyscript" in warm:
        emit(
            f"{pre}interactive_warm_bare_pyscript_worker_median",
            statistics.median(warm["bare_pyscript"]),
            "ms",
        )
    ratio(f"{pre}interactive_warm_to_bare_pyodide", app_warm, bare_warm)
    bare_no_sw = statistics.median(warm["bare_no_sw"])
    app_sw = statistics.median(returning_sw) if returning_sw else float("nan")
    emit(f"{pre}interactive_returning_sw_median", app_sw, "ms")
    emit(f"{pre}interactive_returning_sw_served", f"{len(returning_sw)}/{RUNS}", "count")
    emit(f"{pre}interactive_warm_bare_pyodide_worker_no_sw_median", bare_no_sw, "ms")
    ratio(f"{pre}interactive_returning_sw_to_bare_pyodide_warm_no_sw", app_sw, bare_no_sw)
    return ctx


# The page and its service worker both refused by the network (a request the worker does not answer).
REFUSED = "() => fetch('/healthz', {cache: 'no-store'}).then(() => false, () => true)"
# When the offline note (#net-note) first gets its text, on the page's clock (navigation start = 0).
NOTE_WATCH = """new MutationObserver((_, seen) => { const n = document.getElementById('net-note');
  if (n && n.textContent.trim()) { window.__offlineNote = performance.now(); seen.disconnect(); } })
  .observe(document, {childList: true, subtree: true, characterData: true});"""


def offline_visit(ctx: BrowserContext, url: str, profile: Profile) -> tuple[float, float, bool]:
    """Navigation → the offline note shows, → Python ready (ms), and whether the network was really off."""
    page = profile.new_page(ctx, offline=True)
    page.add_init_script(NOTE_WATCH)
    page.goto(url, wait_until="commit")  # fails unless the service worker answers
    note = float(page.wait_for_function("window.__offlineNote", timeout=60_000).json_value())
    page.wait_for_selector("html.ready", state="attached", timeout=60_000)
    ready = float(page_timings(page)["ready"])
    cut = page.evaluate("navigator.onLine") is False and bool(page.evaluate(REFUSED))
    cut = cut and all(bool(w.evaluate(REFUSED)) for w in ctx.service_workers)
    page.close()
    return note, ready, cut


def offline_figures(ctx: BrowserContext, base: str, profile: Profile) -> None:
    """The installed app started offline (its worker controls the site): to its offline note, to ready."""
    pre = profile.prefix
    notes: list[float] = []
    ready: list[float] = []
    refused = 0
    ctx.set_offline(True)
    try:
        with profile.throttle():
            for _ in range(RUNS):
                note, up, cut = offline_visit(ctx, base + "/", profile)
                notes.append(note)
                ready.append(up)
                refused += int(cut)
    finally:
        ctx.set_offline(False)
    emit(f"{pre}offline_start_median", statistics.median(notes), "ms")
    emit(f"{pre}offline_ready_median", statistics.median(ready), "ms")
    emit(f"{pre}offline_start_network_refused", f"{refused}/{RUNS}", "count")


def main() -> int:
    if not (DIST / "index.html").exists():
        subprocess.run([sys.executable, str(ROOT / "web" / "build.py"), "--out", str(DIST)], check=True)
    profiles = os.environ.get("LEXIO_BENCH_PROFILES", "desktop,phone").split(",")
    preview = os.environ.get("LEXIO_BENCH_PREVIEW", "1") != "0"
    tmp = Path(tempfile.mkdtemp(prefix="lexio-bench-"))
    relay, base = start_relay(tmp)
    try:
        table = new_table(base)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            if "desktop" in profiles:
                ctx = startup_figures(p, browser, base, table, tmp, Profile(phone=False))
                if preview:  # live preview for a returning visitor
                    warm = ctx
                    preview_figures(lambda: (warm.new_page(), lambda: None), base, "preview_returning")
                ctx.close()
                if preview:  # live preview, first visit (a fresh profile each time)

                    def first_visit() -> tuple[Page, Callable[[], None]]:
                        fresh = browser.new_context(viewport=DESKTOP_VIEWPORT)
                        return fresh.new_page(), fresh.close

                    preview_figures(first_visit, base, "preview", tracer=browser)
                    preview_figures(first_visit, base, "preview_cdp", driver="cdp")
            if "phone" in profiles:
                startup_figures(p, browser, base, table, tmp, Profile(phone=True)).close()
            browser.close()
    finally:
        relay.terminate()
        relay.wait(timeout=10)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
