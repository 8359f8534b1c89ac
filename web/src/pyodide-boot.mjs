// The app's worker (a module worker the page starts from index.html's bootstrap as it parses, issue 28): it
// loads Pyodide, unpacks the app bundle, runs main.py, and gives returning visitors an interpreter memory
// snapshot instead of booting CPython again (measured on this machine: Python ready in ~0.45 s instead of
// ~2.4 s). PyScript used to run this (its `interpreter` module): its chain of requests and its own Python
// start-up cost ~0.3 s before our first byte of Python ran, and the page and Python only ever talked through
// messages anyway, so the page now starts this worker itself (see web/README.md, "Performance").
// First visit: boot in snapshot-making mode, unpack the app bundle, import the modules of the first path
// (app.loader's finders installed first; no JS object touched yet), snapshot, then import main.py (bundled
// as __MAIN__); the snapshot is stored in the Cache API a few seconds later, keyed by runtime version and
// app build.
// Any failure (no Cache API, a damaged or foreign entry) falls back to a normal start and drops the cache.
// Messages from the page: first {t: "boot", boot: JSON of its state}, then each UI event as a JSON string
// (the page keeps them until this posts "lexio-ready"). To the page: "lexio-progress:…", "lexio:" + patch.
// Placeholders (__NAME__) are filled by web/build.py.
import {loadPyodide as load, version} from "__PYODIDE__/pyodide.mjs";

export {version};

const at = (path) => new URL(path, import.meta.url).href;
const SNAPSHOTS = "lexio-snapshot";
const KEY = at("__BASE__snapshot/" + version + "/__BUILD__");
const HOME = "/home/pyodide";  // where the bundle is unpacked: `app`, `engine`, `wire` (web/build.py: HOME)
const LOCK = __LOCK__;  // Pyodide's lock file without its packages (see loadPyodide below)
const WARM = "__WARM__";  // main.py's own imports minus the browser modules: compiled into the snapshot
const SAVE_DELAY_MS = 3000;  // after the first screen is up: storing ~30 MB must not compete with it,
const SAVE_QUIET_MS = 2000;  // nor with a player's typing (it holds this thread for tens of ms): after a pause,
const SAVE_LATEST_MS = 60000;  // or at the latest this long after the start

// The stored snapshot's entry, or null; its ~30 MB body is read while Pyodide loads its JavaScript
// (loadPyodide awaits `_loadSnapshot` only before instantiating the wasm, which needs its size): read first,
// it held the start for 90-120 ms on this machine.
async function findSnapshot() {
  try {
    return (await (await caches.open(SNAPSHOTS)).match(KEY)) || null;
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

// The bundle is a stored (not deflated) zip made by web/build.py: its files are written straight into the
// file system here. Pyodide's unpackArchive goes through Python's zipfile and shutil, which after a snapshot
// start took 0.2-0.3 s (their code runs for the first time in this wasm instance); this takes a few ms.
// Anything unexpected (a deflated member, a data descriptor): false, and unpackArchive does it.
function unpackStored(py, buf, dir) {
  const bytes = new Uint8Array(buf), view = new DataView(buf), names = new TextDecoder();
  const files = [];
  let at = 0;
  while (at + 30 <= bytes.length && view.getUint32(at, true) === 0x04034b50) {
    const flags = view.getUint16(at + 6, true), method = view.getUint16(at + 8, true);
    const size = view.getUint32(at + 18, true), nameLen = view.getUint16(at + 26, true);
    const extraLen = view.getUint16(at + 28, true);
    if (method !== 0 || (flags & 8)) return false;
    const name = names.decode(bytes.subarray(at + 30, at + 30 + nameLen));
    const start = at + 30 + nameLen + extraLen;
    if (name.includes("..") || name.startsWith("/")) return false;
    files.push([name, bytes.subarray(start, start + size)]);
    at = start + size;
  }
  if (at + 4 > bytes.length || view.getUint32(at, true) !== 0x02014b50) return false;  // the central directory
  for (const [name, data] of files) {
    const path = dir + "/" + name;
    if (name.endsWith("/")) { py.FS.mkdirTree(path); continue; }
    py.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    py.FS.writeFile(path, data);
  }
  return true;
}

// The page's messages: its state at start, then UI events, handed to Python once main.py listens.
let bootData = null, onBoot = null, onUi = null, lastMessage = 0;
const early = [];
self.onmessage = (m) => {
  lastMessage = performance.now();
  if (m.data && m.data.t === "boot") {
    bootData = m.data.boot;
    if (onBoot) onBoot();
  } else if (onUi) onUi(m.data);
  else early.push(m.data);
};
globalThis.lexioListen = (fn) => { onUi = fn; early.splice(0).forEach((d) => fn(d)); };

async function loadPyodide(options) {
  const t0 = performance.now();
  globalThis.fetch = countingFetch;
  report("download", true);
  const bundle = fetch(at("__BASE____BUNDLE__")).then((r) => {
    if (!r.ok) throw new Error("app bundle: HTTP " + r.status);
    return r.arrayBuffer();
  });
  bundle.catch(() => {});  // awaited below; a failure is reported there, not as an unhandled rejection
  // The standard library stored rather than deflated (web/build.py, STDLIB_STORED): the same files, a third
  // fewer bytes on the wire once brotli has the whole archive, and no inflating at each import.
  // No pyodide-lock.json to fetch and parse (119 KB for wheels this site does not ship): its "info", no
  // packages (web/build.py, lock_contents); packages, if ever asked for, would come from here as before.
  const opts = {...options, indexURL: at("__PYODIDE__/"), stdLibURL: at("__PYODIDE__/__STDLIB__"),
                lockFileContents: LOCK, packageBaseUrl: at("__PYODIDE__/")};
  const snap = await findSnapshot();
  let py = null;
  if (snap) {
    try {
      py = await load({...opts, _loadSnapshot: snap.arrayBuffer().then((b) => new Uint8Array(b))});
    } catch (e) {
      console.warn("lexio: interpreter snapshot not usable, starting afresh", e);
      await forget();
    }
  }
  const fresh = py === null;
  if (fresh) py = await load({...opts, _makeSnapshot: true});
  const tLoad = performance.now();
  globalThis.fetch = realFetch;
  report("python", true);
  // The sources stay on the file system even when their modules come from the snapshot: some are imported
  // only when needed (the offline demo, GCG export).
  const zip = await bundle;
  const tBundle = performance.now();
  if (!unpackStored(py, zip, HOME)) py.unpackArchive(zip, "zip", {extractDir: HOME});
  const tUnpack = performance.now();
  let tImports = tUnpack;
  if (fresh) {
    let taken = null;
    try {
      // app.loader's finders first (kept in the snapshot): modules off the first path are deferred, the
      // standard modules the bundle carries compiled come from there.
      py.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(HOME)})\nfrom app import loader\nloader.install(${JSON.stringify(HOME)})\nimport ${WARM}`);
      tImports = performance.now();
      taken = py.makeMemorySnapshot();
    } catch (e) {
      console.warn("lexio: no interpreter snapshot this time", e);
    }
    // In snapshot-making mode Python sees a path-recording stand-in for the JS globals, under which some
    // accessors throw "Illegal invocation": from here on the app gets the real ones.
    py.registerJsModule("js", globalThis);
    if (taken) {
      const started = performance.now();
      const saveWhenQuiet = () => {
        const now = performance.now();
        if (now - lastMessage < SAVE_QUIET_MS && now - started < SAVE_LATEST_MS) setTimeout(saveWhenQuiet, 500);
        else saveSnapshot(taken);
      };
      setTimeout(saveWhenQuiet, SAVE_DELAY_MS);
    }
  }
  const tEnd = performance.now();
  globalThis.lexioRuntime = {snapshot: !fresh, ms: Math.round(tEnd - t0),
    phases: [t0, tLoad, tBundle, tUnpack, tImports, tEnd].map(Math.round).join(",")};
  return py;
}

// Started at once (the page started this worker while parsing its HTML), but not awaited at the module's top
// level: a module worker's messages may wait for its top-level evaluation, and this waits for one of them.
async function main() {
  // The relay's address (web/build.py --relay), asked for now rather than by Python once it has started:
  // null if it cannot be read, and main.py's own request tries again.
  const config = fetch(at("__BASE__config.json"))
    .then((r) => (r.ok ? r.json() : null))
    .then((c) => (c && typeof c.relay === "string" ? c.relay : null), () => null);
  try {
    const py = await loadPyodide({packages: []});
    // A snapshot start has `app` on sys.path already; a start without one (it failed) needs it too.
    py.runPython(`import sys\nif ${JSON.stringify(HOME)} not in sys.path: sys.path.insert(0, ${JSON.stringify(HOME)})`);
    if (bootData === null) await new Promise((resolve) => { onBoot = resolve; });
    globalThis.lexioBootData = bootData;
    globalThis.lexioConfigRelay = await config;
    globalThis.lexioRuntime.phases += "," + Math.round(performance.now());  // main.py handed to Python
    // Imported, not run from its source: runPython parses into Python's AST first, and on a snapshot start
    // the compiler has never run in this instance (60-90 ms); the bundle has main.py's bytecode.
    py.pyimport("__MAIN__");
  } catch (e) {
    console.error("lexio: the app did not start", e);
    postMessage("lexio-failed:" + String((e && e.message) || e).slice(0, 2000));
  }
}
main();
