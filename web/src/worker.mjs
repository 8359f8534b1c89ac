// Lexio's Python runtime: plain Pyodide in a module worker (no PyScript layer: measured slower to start and
// it needs cross-origin isolation for its synchronous calls, which the app does not make).
// Returning visitors start from a memory snapshot of the interpreter taken on their first visit, right after
// the stdlib and the app's pure-Python modules were imported (kept in the Cache API, keyed by runtime + app
// build): that skips CPython's start-up and the compilation of our sources (measured ~2.2 s → ~0.5 s).
// Messages: page → worker, first {boot: JSON}, then one JSON string per UI event (queued until Python is
// ready); worker → page, "lexio:" + JSON patch, and "lexio-progress:" + bytes while downloading.
import {loadPyodide} from "__PYODIDE__/pyodide.mjs";

const T = {worker: performance.now()};
const inbox = [];
let deliver = null;
self.onmessage = (m) => {
  if (m.data && typeof m.data === "object" && "boot" in m.data) self.lexioBootInfo = m.data.boot;
  else if (deliver) deliver(m.data);
  else inbox.push(m.data);
};
// Python calls this once it has taken over: queued events are handed over in order, then each as it comes.
self.lexioFlush = () => {
  deliver = (text) => self.lexioUi(text);
  inbox.splice(0).forEach(deliver);
};

let got = 0;
try {
  new PerformanceObserver((list) => {
    list.getEntries().forEach((e) => { got += e.encodedBodySize || e.transferSize || 0; });
    postMessage("lexio-progress:" + got);
  }).observe({type: "resource", buffered: true});
} catch (e) {}

const SNAPSHOTS = "lexio-snapshot";
const KEY = "__BASE__snapshot/__PYODIDE_VERSION__/__BUILD__";
const bundle = fetch("__BUNDLE__").then((r) => {
  if (!r.ok) throw new Error("app bundle: HTTP " + r.status);
  return r.arrayBuffer();
});

async function readSnapshot() {
  try {
    const r = await (await caches.open(SNAPSHOTS)).match(KEY);
    return r ? new Uint8Array(await r.arrayBuffer()) : null;
  } catch (e) {
    return null;  // no Cache API (e.g. insecure origin): start from scratch every time
  }
}

async function saveSnapshot(bytes) {
  try {
    const cache = await caches.open(SNAPSHOTS);
    for (const req of await cache.keys()) {
      if (!req.url.endsWith(KEY)) await cache.delete(req);  // older builds' snapshots are dead weight
    }
    await cache.put(KEY, new Response(bytes, {headers: {"Content-Type": "application/octet-stream"}}));
  } catch (e) {}
}

async function start() {
  const snap = await readSnapshot();
  T.snapshot = performance.now();
  const opts = {indexURL: "__PYODIDE__/", packages: []};
  let py = null;
  if (snap) {
    try {
      py = await loadPyodide({...opts, _loadSnapshot: snap});
    } catch (e) {
      // Another runtime build or a damaged entry: forget it and start normally (a new one is taken below).
      console.warn("lexio: snapshot not usable", e);
      try { await caches.delete(SNAPSHOTS); } catch (e2) {}
    }
  }
  const fresh = py === null;
  if (fresh) py = await loadPyodide({...opts, _makeSnapshot: true});
  T.runtime = performance.now();
  // The sources stay on the file system even when their modules come from the snapshot: some are imported
  // only when needed (the offline demo, GCG export).
  const zip = await bundle;
  T.bundle = performance.now();
  py.unpackArchive(zip, "zip", {extractDir: "/lexio"});
  T.unpacked = performance.now();
  let taken = null;
  if (fresh) {
    // What the first screen needs, imported and compiled before the snapshot (no JS object may be
    // referenced yet): main.py's imports, and main.py itself (from the bundle).
    py.runPython([
      "import sys", "sys.path.insert(0, '/lexio')", "import __LEXIO_WARM__",
      "with open('/lexio/main.py', encoding='utf-8') as f: LEXIO_MAIN = compile(f.read(), 'main.py', 'exec')",
    ].join("\n"));
    T.compiled = performance.now();
    taken = py.makeMemorySnapshot();
    // Snapshot mode hands Python a path-recording proxy of the globals, under which accessors such as
    // `performance` throw "Illegal invocation": from here on the app gets the real ones.
    py.registerJsModule("js", globalThis);
  }
  T.started = performance.now();
  self.lexioTimes = JSON.stringify({...T, snapshot_used: !fresh});
  py.runPython("exec(LEXIO_MAIN, {'__name__': '__main__'})");
  if (taken) setTimeout(() => saveSnapshot(taken), 2000);  // after the first screen is up
}

start().catch((e) => {
  console.error("lexio: start failed", e);
  try { caches.delete(SNAPSHOTS); } catch (e2) {}  // whatever went wrong, the next visit starts clean
  postMessage("lexio-failed:" + String(e && e.message || e));
});
