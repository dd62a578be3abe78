// The service worker: keeps the page shell (this page's HTML, modules, styles, icon and
// manifest) so the page opens without the network, and nothing else. Files, listings,
// config.json, uploads and everything under /files/ are never intercepted, so never cached.
//
// The one POST it takes is the share target's (manifest.webmanifest: `/upload.html?share`): the
// shared files go into IndexedDB and the page, opened at `/?shared`, sends them with its own
// queue (share.js), so a share shows progress and its result like any upload.
//
// Network first, cache as the fallback: the daemon is on the local network, and it already
// answers every shell request with `no-cache` and an ETag (a cheap 304), so an upgraded
// daemon's page shows at once; the cache only answers when the server cannot be reached.
// Cache-first would need a version bump with every change to web/, which has no build step
// to do it. Bump CACHE's version when SHELL changes: the new worker drops the old cache.

const CACHE = 'filedrop-shell-v6';
// The manifest's PNG icons are left out: the page never shows them, and a device that installs
// the app keeps its own copy. So are the modules the page loads only when it sends (tus.js, with
// the first big file; share.js, for a share): sending needs the network anyway.
const SHELL = [
  '/', '/style.css', '/page.css', '/app.js', '/announce.js', '/arrivals.js', '/collect.js', '/config.js',
  '/file-ops.js', '/format.js', '/i18n.js', '/listing.js', '/queue-view.js', '/queue.js', '/resume-store.js',
  '/unfinished.js',
  '/manifest.webmanifest', '/icon.svg',
];
const SHELL_PATHS = new Set(SHELL);
const SHARE_PATH = '/upload.html';
// The same names as in share.js.
const SHARE_DATABASE = 'filedrop-share';
const SHARE_STORE = 'shared';
const SHARE_KEY = 'pending';
// The same page under its other name, kept once.
const INDEX = '/index.html';

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method === 'POST' && url.origin === location.origin && url.pathname === SHARE_PATH
      && url.searchParams.has('share')) {
    event.respondWith(keepShare(request));
    return;
  }
  // Only GETs of the shell itself; a query (`?zip`, a listing's) means it is not the shell.
  if (request.method !== 'GET' || url.origin !== location.origin || url.search) return;
  const path = url.pathname === INDEX ? '/' : url.pathname;
  if (SHELL_PATHS.has(path)) event.respondWith(fromNetworkThenCache(request, path));
});

async function fromNetworkThenCache(request, path) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    // 200 only: a 206 cannot be stored, and a 401 or 404 is no page to open offline.
    if (response.status === 200) await cache.put(path, response.clone());
    return response;
  } catch (error) {
    const kept = await cache.match(path);
    if (kept) return kept;
    throw error;
  }
}

/** Keeps the shared files for the page and opens it; when they cannot be kept (no room for
 *  IndexedDB, a form the worker cannot read), the POST goes on to the server as it came. */
async function keepShare(request) {
  const untouched = request.clone();
  try {
    const files = (await request.formData()).getAll('file').filter((value) => value instanceof File);
    await storeShared(files);
    return Response.redirect('/?shared', 303);
  } catch {
    return fetch(untouched);
  }
}

function storeShared(files) {
  return new Promise((resolve, reject) => {
    const opening = indexedDB.open(SHARE_DATABASE, 1);
    opening.onupgradeneeded = () => opening.result.createObjectStore(SHARE_STORE);
    opening.onerror = () => reject(opening.error);
    opening.onsuccess = () => {
      const transaction = opening.result.transaction(SHARE_STORE, 'readwrite');
      transaction.objectStore(SHARE_STORE).put(files, SHARE_KEY);
      transaction.oncomplete = () => resolve();
      transaction.onerror = () => reject(transaction.error);
    };
  });
}
