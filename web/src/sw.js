// Lexio's service worker (issue 31, "installable app"): the site's files of one build, kept by content hash,
// so that an installed app or a returning visit starts without the network; turn reminders (Web Push).
// web/build.py fills the placeholders: __PRECACHE__ is [[url, sha256 prefix], ...] of the files it wrote
// (the shell, the Pyodide runtime, the app bundle with main.py, the worker module by their versioned URLs),
// __CACHE__ a name made of all those hashes: a build whose files differ has another name, hence another
// sw.js, which the browser installs next to the running one and keeps waiting until the page says "reload".
// Written by hand rather than with workbox: ~150 lines, no build-time dependency, and the rules below are
// the whole of it (web/README.md, "Installable app").
"use strict";

const BASE = "__BASE__";
const CACHE = "__CACHE__";
const PRECACHE = __PRECACHE__;
const PREFIX = "lexio-shell-";  // every build's cache; the interpreter snapshot's ("lexio-snapshot") is not ours
const REPLAYS = "lexio-replays";  // finished games' records already viewed (GET /api/tables/ID/gcg)
const REPLAYS_KEPT = 50;
const LIST_KEY = BASE + "__precache.json";  // each cache says which files (and hashes) it holds
const SHELL = BASE + "index.html";
const GCG = /\/api\/tables\/[^/]+\/gcg$/;

function hex(buf) {
  return Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");
}

// A file whose hash this worker already holds in an older build's cache is copied from there: a new build
// downloads only what changed (the 9.6 MB wasm stays). Anything fetched is checked against its hash, so a
// half-deployed site (a new index.html, an old sw.js) fails the install instead of caching a mixture.
async function precache() {
  const cache = await caches.open(CACHE);
  const known = new Map();
  for (const name of await caches.keys()) {
    if (!name.startsWith(PREFIX) || name === CACHE) continue;
    const old = await caches.open(name);
    const list = await old.match(LIST_KEY);
    if (!list) continue;
    for (const [url, hash] of await list.json()) known.set(url + " " + hash, old);
  }
  await Promise.all(PRECACHE.map(async ([url, hash]) => {
    const old = known.get(url + " " + hash);
    const kept = old && await old.match(url);
    if (kept) return cache.put(url, kept);
    // "no-cache": the HTTP cache may hold an older build's copy of an unversioned file (index.html).
    const r = await fetch(url, {cache: "no-cache"});
    if (!r.ok) throw new Error(url + ": HTTP " + r.status);
    const body = await r.arrayBuffer();
    const got = hex(await crypto.subtle.digest("SHA-256", body)).slice(0, hash.length);
    if (got !== hash) throw new Error(url + ": content does not match this build");
    await cache.put(url, new Response(body, {status: r.status, statusText: r.statusText, headers: r.headers}));
  }));
  await cache.put(LIST_KEY, new Response(JSON.stringify(PRECACHE), {headers: {"Content-Type": "application/json"}}));
}

self.addEventListener("install", (e) => { e.waitUntil(precache()); });

// Waiting is the default: the page shows "new version, reload" and posts SKIP_WAITING when the player agrees
// (a running game is never swapped under the player's feet).
self.addEventListener("message", (e) => {
  if (e.data && e.data.t === "SKIP_WAITING") self.skipWaiting();
});

self.addEventListener("activate", (e) => {
  e.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();  // a first visit's page is served from here from now on
  })());
});

async function fromCache(req) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(req);
  if (hit) return hit;
  const r = await fetch(req);
  // Versioned runtime files not precached (the emoji font's subsets, fetched as text needs them) never
  // change in place: kept once seen.
  if (r.ok && new URL(req.url).pathname.startsWith(BASE + "runtime/")) await cache.put(req, r.clone());
  return r;
}

async function networkFirst(req, cacheName, keep) {
  const cache = await caches.open(cacheName);
  try {
    const r = await fetch(req);
    if (r.ok) {
      await cache.put(req, r.clone());
      if (keep) {
        const keys = await cache.keys();
        for (const old of keys.slice(0, Math.max(0, keys.length - keep))) await cache.delete(old);
      }
    }
    return r;
  } catch (err) {
    const hit = await cache.match(req);
    if (hit) return hit;
    throw err;
  }
}

// Navigations inside the app (/, /t/ID, /account, /u/NAME…) get this build's shell at once, from the cache:
// the app decides what to show; offline it says so. The network only if the cache lost it.
async function shell(req) {
  const hit = await (await caches.open(CACHE)).match(SHELL);
  return hit || fetch(req);
}

self.addEventListener("fetch", (e) => {
  const req = e.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  // A finished game's record (immutable): from the network, else the copy kept when it was last viewed.
  if (GCG.test(url.pathname)) { e.respondWith(networkFirst(req, REPLAYS, REPLAYS_KEPT)); return; }
  if (url.origin !== self.location.origin || !url.pathname.startsWith(BASE)) return;
  const rel = url.pathname.slice(BASE.length);
  // The relay itself, its sockets and its probes: network only (never answered from a cache).
  if (/^(api|ws)\//.test(rel) || rel === "healthz" || rel === "metrics") return;
  // The relay's address (web/build.py --relay): a host may change it without a new build.
  if (rel === "config.json") { e.respondWith(networkFirst(req, CACHE, 0)); return; }
  if (req.mode === "navigate" && !/\.[^/]*$/.test(rel)) { e.respondWith(shell(req)); return; }
  e.respondWith(fromCache(req));
});

// Turn reminders (docs/protocol.md, "Web Push"): the relay's payload is {title, body, url, table}. The
// click opens the table under this site's base (the payload's url may name the relay's public address).
self.addEventListener("push", (e) => {
  let d = {};
  try { d = e.data ? e.data.json() : {}; } catch (err) { d = {body: e.data ? e.data.text() : ""}; }
  const table = typeof d.table === "string" && /^[\w-]{1,64}$/.test(d.table) ? d.table : "";
  e.waitUntil(self.registration.showNotification(String(d.title || "Lexio"), {
    body: String(d.body || ""),
    tag: "lexio-" + (table || "turn"),  // a newer notice for the table replaces the older one
    icon: BASE + "icon-192.png",
    data: {url: BASE + (table ? "t/" + table : "")},
  }));
});

self.addEventListener("notificationclick", (e) => {
  e.notification.close();
  const target = new URL((e.notification.data && e.notification.data.url) || BASE, self.location.origin).href;
  e.waitUntil((async () => {
    const open = await self.clients.matchAll({type: "window", includeUncontrolled: true});
    const same = open.find((c) => c.url === target);
    if (same) return same.focus();
    const any = open.find((c) => new URL(c.url).pathname.startsWith(BASE) && "navigate" in c);
    if (any) {
      const moved = await any.navigate(target);
      return (moved || any).focus();
    }
    return self.clients.openWindow(target);
  })());
});
