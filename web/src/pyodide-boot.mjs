// PyScript's `interpreter` module (pyscript.json names this file instead of pyodide.mjs): it re-exports
// Pyodide's `version` and wraps `loadPyodide`, so PyScript still runs the app while a returning visitor
// starts from a memory snapshot of the interpreter instead of booting CPython again (measured on this
// machine: the worker's Python ready in ~0.45 s instead of ~2.4 s).
// First visit: boot normally in snapshot-making mode, unpack the app bundle, import the pure-Python modules
// main.py needs (engine + app, no JS object touched yet), snapshot, then hand the interpreter to PyScript;
// the snapshot is stored in the Cache API a few seconds later, keyed by runtime version and app build.
// Any failure (no Cache API, a damaged or foreign entry) falls back to a normal start and drops the cache.
// Placeholders (__NAME__) are filled by web/build.py.
import {loadPyodide as load, version} from "__PYODIDE__/pyodide.mjs";

export {version};

// PyScript runs this module in a blob: worker, where relative URLs do not resolve: anchor them here.
const at = (path) => new URL(path, import.meta.url).href;
const SNAPSHOTS = "lexio-snapshot";
const KEY = at("__BASE__snapshot/" + version + "/__BUILD__");
const HOME = "/home/pyodide";  // PyScript's working directory, where main.py finds `app` and `engine`
const WARM = "__WARM__";  // main.py's own imports minus the browser modules: compiled into the snapshot
const SAVE_DELAY_MS = 3000;  // after the first screen is up: storing ~30 MB must not compete with it

async function readSnapshot() {
  try {
    const r = await (await caches.open(SNAPSHOTS)).match(KEY);
    return r ? new Uint8Array(await r.arrayBuffer()) : null;
  } catch (e) {
    return null;  // no Cache API here: every visit starts from scratch
  }
}

async function saveSnapshot(bytes) {
  try {
    const cache = await caches.open(SNAPSHOTS);
    for (const req of await cache.keys()) {
      if (req.url !== KEY) await cache.delete(req);  // older builds' snapshots are dead weight
    }
    await cache.put(KEY, new Response(bytes, {headers: {"Content-Type": "application/octet-stream"}}));
  } catch (e) {
    console.warn("lexio: interpreter snapshot not stored", e);
  }
}

async function forget() {
  try { await caches.delete(SNAPSHOTS); } catch (e) {}
}

// Start-up progress for the page (index.html): bytes of the runtime received so far, then "python" while
// the interpreter starts. Posted as "lexio-progress:" + JSON; a page that does not listen loses nothing.
let received = 0, lastReport = 0;
function report(phase, force) {
  const now = performance.now();
  if (!force && now - lastReport < 30) return;
  lastReport = now;
  try { postMessage("lexio-progress:" + JSON.stringify({got: received, phase})); } catch (e) {}
}
const realFetch = globalThis.fetch;
function countingFetch(...args) {
  return realFetch(...args).then((r) => {
    if (!r.body || !r.ok) return r;
    const counted = r.body.pipeThrough(new TransformStream({
      transform(chunk, ctl) { received += chunk.byteLength; report("download", false); ctl.enqueue(chunk); },
    }));
    // Same status and headers (application/wasm keeps streaming compilation).
    return new Response(counted, {status: r.status, statusText: r.statusText, headers: r.headers});
  });
}

export async function loadPyodide(options) {
  const t0 = performance.now();
  globalThis.fetch = countingFetch;
  report("download", true);
  const bundle = fetch(at("__BASE____BUNDLE__")).then((r) => {
    if (!r.ok) throw new Error("app bundle: HTTP " + r.status);
    return r.arrayBuffer();
  });
  bundle.catch(() => {});  // awaited below; a failure is reported there, not as an unhandled rejection
  const opts = {...options, indexURL: at("__PYODIDE__/")};
  const snap = await readSnapshot();
  let py = null;
  if (snap) {
    try {
      py = await load({...opts, _loadSnapshot: snap});
    } catch (e) {
      console.warn("lexio: interpreter snapshot not usable, starting afresh", e);
      await forget();
    }
  }
  const fresh = py === null;
  if (fresh) py = await load({...opts, _makeSnapshot: true});
  globalThis.fetch = realFetch;
  report("python", true);
  // The sources stay on the file system even when their modules come from the snapshot: some are imported
  // only when needed (the offline demo, GCG export).
  py.unpackArchive(await bundle, "zip", {extractDir: HOME});
  if (fresh) {
    let taken = null;
    try {
      py.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(HOME)})\nimport ${WARM}\nsys.path.remove(${JSON.stringify(HOME)})`);
      taken = py.makeMemorySnapshot();
    } catch (e) {
      console.warn("lexio: no interpreter snapshot this time", e);
    }
    // In snapshot-making mode Python sees a path-recording stand-in for the JS globals, under which some
    // accessors throw "Illegal invocation": from here on PyScript and the app get the real ones.
    py.registerJsModule("js", globalThis);
    if (taken) setTimeout(() => saveSnapshot(taken), SAVE_DELAY_MS);
  }
  globalThis.lexioRuntime = {snapshot: !fresh, ms: Math.round(performance.now() - t0)};
  return py;
}
