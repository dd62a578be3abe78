// The shared files: a live listing of one folder, refreshed by polling `?format=json` every
// 5 s while the page is visible (cheap: an unchanged folder costs a 304). Sorted by date, name
// or size and filtered as you type, with the count and total size; small images show a
// thumbnail the browser draws from the file itself, only once its row is on screen.
//
// A folder of 100,000 entries stays responsive: the listing comes in pages of PAGE_SIZE
// (`limit`/`after`, each parsed in its own task; the first page's ETag covers the whole folder,
// so polling asks for that one only), and the list is a window of at most MAX_ROWS rows over
// the sorted entries: RENDER_BATCH more are made as either end scrolls into view (or its
// "show more" / "show earlier" button is pressed), and as many leave the other end, so the
// page never holds more than a few thousand rows. Scroll anchoring keeps what is on screen
// in place while rows come and go above it.
//
// Every name reaches the page through textContent or DOM properties, never innerHTML; links
// use the server's `url` fields as given.

import { formatBytes, formatTime } from './format.js';
import { noticeArrivals } from './arrivals.js';
import { t, tn } from './i18n.js';

export const ROOT_LISTING_URL = new URL('files/', document.baseURI).pathname;
const POLL_INTERVAL_MS = 5000;
/** Entries per listing request: the server's maximum (each page is parsed in its own task,
 *  about 1 MiB of JSON). */
const PAGE_SIZE = 10000;
/** Rows made at a time: a few screens' worth, few enough to make in a few ms. */
const RENDER_BATCH = 200;
const MAX_ROWS = 1200;
/** Images at most this big get a thumbnail: the browser loads the whole file to draw one. */
const THUMBNAIL_MAX_BYTES = 4 * 1024 * 1024;
const THUMBNAIL_TYPES = /\.(png|jpe?g|gif|webp|avif|bmp)$/i;

const $ = (id) => document.getElementById(id);

/** The folder shown: the server's own URL for it (from a `url` field), never built from names. */
let currentFolderUrl = ROOT_LISTING_URL;
/** Its path below /files/ as the server spells it ("" or "a/b/"), for uploads into it. */
let currentFolderPath = '';
let listing = null;
// The ETag of the listing shown (of its first page, which covers the whole folder): each poll
// sends it, and an unchanged folder costs a 304.
let lastListingETag = '';
/** The entries as sorted and filtered for the screen, and the window of them that has rows. */
let shownEntries = [];
let windowStart = 0;
let windowEnd = 0;
let edgeObserver = null;
let listingRequest = null;
let refreshTimer = 0;
let pollTimer = 0;
let focusWhenShown = false;
const thumbnails = new Map();
let thumbnailObserver = null;
const folderChanged = [];
// file-ops.js: controls added to each row, told of each render, and a hold on re-rendering
// while a person edits a row (a poll must not wipe a rename half typed).
const entryDecorators = [];
const renderedListeners = [];
let renderingHeld = false;
let renderPending = false;

export function decorateEntries(decorator) {
  entryDecorators.push(decorator);
}

export function onListingRendered(listener) {
  renderedListeners.push(listener);
}

export function holdRendering(hold) {
  renderingHeld = hold;
  if (!hold && renderPending) renderListing();
}

/** The server's URL of the folder on screen. */
export function currentFolder() {
  return currentFolderUrl;
}

/** Where uploads go: the folder on screen. */
export function destinationFolder() {
  return currentFolderPath;
}

export function onFolderChange(listener) {
  folderChanged.push(listener);
}

function decodedSegments(url) {
  const rootSegments = ROOT_LISTING_URL.split('/').filter(Boolean).length;
  return url.split('/').filter(Boolean).slice(rootSegments)
    .map((segment) => { try { return decodeURIComponent(segment); } catch { return segment; } });
}

function setFolderPath(path) {
  if (path === currentFolderPath) return;
  currentFolderPath = path;
  for (const listener of folderChanged) listener(path);
}

export function folderFromHash() {
  const match = /^#folder=(.+)$/.exec(location.hash);
  if (!match) return ROOT_LISTING_URL;
  const url = new URL(decodeURIComponent(match[1]), location.href);
  const inside = url.origin === location.origin && url.pathname.startsWith(ROOT_LISTING_URL)
    && url.pathname.endsWith('/');
  return inside ? url.pathname : ROOT_LISTING_URL;
}

/** `focus`: a person opened it, so the breadcrumb's "you are here" takes the focus. */
export function openFolder(url, { push, focus = false }) {
  currentFolderUrl = url;
  lastListingETag = '';
  windowStart = 0;
  windowEnd = 0;
  focusWhenShown = focus;
  const segments = decodedSegments(url);
  setFolderPath(segments.map((name) => `${name}/`).join(''));
  if (push) {
    const hash = url === ROOT_LISTING_URL ? '' : `#folder=${encodeURIComponent(url)}`;
    history.pushState(null, '', hash || location.pathname + location.search);
  }
  refreshListing();
}

/** `poll`: a timer's refresh, which leaves one still under way alone (a big folder's pages
 *  take a few seconds; starting over every 5 s would never finish). */
export async function refreshListing({ poll = false } = {}) {
  if (listingRequest && poll) return;
  if (listingRequest) listingRequest.abort();
  const controller = new AbortController();
  listingRequest = controller;
  const folder = currentFolderUrl;
  try {
    const first = await fetchListingPage(folder, null, lastListingETag, controller.signal);
    if (!first) return;
    const etag = first.etag;
    const entries = [...first.entries];
    const before = listing && listing.folder === folder && listing.complete
      ? new Set(listing.entries.map((entry) => entry.name)) : null;
    let next = first.next;
    // A folder opened anew shows its first page at once, while the rest comes.
    if (typeof next === 'string' && !(listing && listing.folder === folder)) show(folder, first.path, entries, false);
    while (typeof next === 'string') {
      const page = await fetchListingPage(folder, next, '', controller.signal);
      if (!page) return;
      for (const entry of page.entries) entries.push(entry);
      next = page.next;
    }
    lastListingETag = etag;
    show(folder, first.path, entries, true);
    if (before) noticeArrivals(listing.entries.filter((entry) => !before.has(entry.name)));
  } catch (error) {
    if (error.name !== 'AbortError') showListingStatus(t('files.connectionLost'));
  } finally {
    if (listingRequest === controller) listingRequest = null;
  }
}

/** `complete`: every page is in (else only arrivals are not told, and the next poll goes on). */
function show(folder, path, entries, complete) {
  listing = { folder, path, entries: complete ? entries : [...entries], complete };
  if (path !== null) setFolderPath(path.replace(/^\/+/, ''));
  renderListing();
}

/** One page of `folder` (the first when `after` is null): { path, entries, next, etag }, or
 *  null when there is nothing new (a 304) or the failure was shown. */
async function fetchListingPage(folder, after, etag, signal) {
  const url = new URL(folder, location.href);
  url.searchParams.set('format', 'json');
  url.searchParams.set('limit', String(PAGE_SIZE));
  if (after !== null) url.searchParams.set('after', after);
  const headers = { Accept: 'application/json' };
  if (etag) headers['If-None-Match'] = etag;
  // 'no-store' keeps the browser cache out of it, so a 304 reaches this code as it is.
  const response = await fetch(url, { headers, signal, cache: 'no-store' });
  if (response.status === 304) return null;
  const text = await response.text();
  if (!response.ok) {
    if (response.status === 404 && folder !== ROOT_LISTING_URL) {
      openFolder(ROOT_LISTING_URL, { push: true, focus: focusWhenShown });
      return null;
    }
    const reply = parseJSON(text);
    showListingStatus(reply && reply.error ? reply.error : t('files.loadFailed', { status: response.status }));
    return null;
  }
  const parsed = parseJSON(text);
  if (!parsed || !Array.isArray(parsed.entries)) {
    showListingStatus(t('files.unreadable'));
    return null;
  }
  return {
    path: typeof parsed.path === 'string' ? parsed.path : null,
    entries: validEntries(parsed.entries),
    next: typeof parsed.next === 'string' ? parsed.next : null,
    etag: response.headers.get('ETag') || '',
  };
}

function parseJSON(text) {
  try { return JSON.parse(text); } catch { return null; }
}

function validEntries(entries) {
  return entries.filter((entry) => entry && typeof entry.name === 'string' && typeof entry.url === 'string');
}

export function refreshListingSoon() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refreshListing, 250);
}

function showListingStatus(text) {
  lastListingETag = '';
  $('files-status').textContent = text;
}

/** Breadcrumb: ancestors are prefixes of the server's folder URL; labels are the decoded names. */
function renderBreadcrumb(folder, listingPath) {
  const urlSegments = folder.split('/').filter(Boolean).slice(ROOT_LISTING_URL.split('/').filter(Boolean).length);
  const pathNames = typeof listingPath === 'string' ? listingPath.split('/').filter(Boolean) : [];
  const names = pathNames.length === urlSegments.length ? pathNames : decodedSegments(folder);

  const crumbs = [{ label: t('files.root'), url: ROOT_LISTING_URL }];
  let url = ROOT_LISTING_URL;
  urlSegments.forEach((segment, index) => {
    url = `${url}${segment}/`;
    crumbs.push({ label: names[index], url });
  });

  const items = crumbs.map((crumb, index) => {
    const li = document.createElement('li');
    if (index === crumbs.length - 1) {
      const here = document.createElement('span');
      here.setAttribute('aria-current', 'page');
      here.tabIndex = -1;
      here.textContent = crumb.label;
      li.append(here);
    } else {
      li.append(folderLink(crumb.url, crumb.label));
    }
    return li;
  });
  $('breadcrumb-list').replaceChildren(...items);
}

function folderLink(url, label) {
  const link = document.createElement('a');
  link.href = `#folder=${encodeURIComponent(url)}`;
  link.textContent = label;
  link.addEventListener('click', (event) => {
    event.preventDefault();
    openFolder(url, { push: true, focus: true });
  });
  return link;
}

// One collator for every comparison: localeCompare with options builds one per call, which
// for 100,000 entries (1.7 million comparisons) takes seconds.
const collator = new Intl.Collator(undefined, { numeric: true });
const byName = (a, b) => collator.compare(a.name, b.name);
const SORTS = {
  date: (a, b) => String(b.mtime || '').localeCompare(String(a.mtime || '')) || byName(a, b),
  name: byName,
  size: (a, b) => (Number(b.size) || 0) - (Number(a.size) || 0) || byName(a, b),
};

/** `listing` as Tests/Fixtures/json/listing.json declares it. */
function renderListing() {
  if (!listing) return;
  renderPending = renderingHeld;
  if (renderingHeld) return;
  const { folder, entries } = listing;
  renderBreadcrumb(folder, listing.path);

  const zip = new URL(folder, location.href);
  zip.search = 'zip';
  $('zip-link').href = zip.pathname + zip.search;
  $('zip-link').hidden = entries.length === 0;

  const sort = SORTS[$('sort').value] || SORTS.date;
  const filter = $('filter').value.trim().toLocaleLowerCase();
  const bySize = $('sort').value === 'size';
  const shown = entries
    .filter((entry) => !filter || entry.name.toLocaleLowerCase().includes(filter))
    .sort((a, b) => {
      const aDir = a.type === 'directory';
      const bDir = b.type === 'directory';
      if (aDir !== bDir) return aDir ? -1 : 1;
      return aDir && bySize ? byName(a, b) : sort(a, b);
    });

  $('listing-tools').hidden = entries.length === 0;
  $('files-status').textContent = entries.length === 0
    ? (folder === ROOT_LISTING_URL ? t('files.noFiles') : t('files.emptyFolder'))
    : (shown.length === 0 ? t('files.noMatch', { filter: $('filter').value.trim() }) : '');
  $('listing-summary').textContent = entries.length === 0 ? '' : summary(entries, shown, filter !== '');
  shownEntries = shown;
  // A poll keeps the window where it was (within what is there now); a new order starts at the top.
  windowEnd = Math.min(shown.length, Math.max(windowEnd, windowStart + RENDER_BATCH));
  windowStart = Math.max(windowEnd - MAX_ROWS, Math.min(windowStart, Math.max(0, windowEnd - RENDER_BATCH)));
  const list = $('file-list');
  list.replaceChildren();
  if (windowStart > 0) list.append(edgeItem('earlier'));
  list.append(rows(windowStart, windowEnd));
  if (windowEnd < shown.length) list.append(edgeItem('more'));
  for (const listener of renderedListeners) listener(entries);

  if (focusWhenShown) {
    focusWhenShown = false;
    $('breadcrumb-list').querySelector('[aria-current]').focus();
  }
}

/** Rows for shownEntries[from..<to]. */
function rows(from, to) {
  const fragment = document.createDocumentFragment();
  for (let index = from; index < to; index += 1) fragment.append(renderEntry(shownEntries[index]));
  return fragment;
}

/** An end of the window ('more' below, 'earlier' above): scrolled into view, or pressed, it
 *  moves the window that way. */
function edgeItem(direction) {
  const li = document.createElement('li');
  li.className = 'entry-edge';
  li.dataset.direction = direction;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'button ghost';
  button.textContent = t(direction === 'more' ? 'files.showMore' : 'files.showEarlier', { total: shownEntries.length });
  button.addEventListener('click', () => moveWindow(li, { focus: true }));
  li.append(button);
  if (!edgeObserver) {
    edgeObserver = new IntersectionObserver((seen) => {
      for (const item of seen) if (item.isIntersecting) moveWindow(item.target, { focus: false });
    }, { rootMargin: '600px 0px' });
  }
  edgeObserver.observe(li);
  return li;
}

function moveWindow(item, { focus }) {
  if (!item.isConnected) return;
  const list = $('file-list');
  edgeObserver.unobserve(item);
  item.remove();
  let first;
  if (item.dataset.direction === 'more') {
    const to = Math.min(shownEntries.length, windowEnd + RENDER_BATCH);
    const added = rows(windowEnd, to);
    first = added.firstElementChild;
    list.append(added);
    windowEnd = to;
    if (windowEnd < shownEntries.length) list.append(edgeItem('more'));
    trim(list, 'earlier');
  } else {
    const from = Math.max(0, windowStart - RENDER_BATCH);
    const added = rows(from, windowStart);
    first = added.firstElementChild;
    list.prepend(added);
    windowStart = from;
    if (windowStart > 0) list.prepend(edgeItem('earlier'));
    trim(list, 'more');
  }
  // A keyboard user who pressed the button goes on at the first new row.
  if (focus) first?.querySelector('a')?.focus();
}

/** Rows past MAX_ROWS leave the `side` end of the window, which then gets its edge item. */
function trim(list, side) {
  const excess = windowEnd - windowStart - MAX_ROWS;
  if (excess <= 0) return;
  const edge = list.querySelector(`:scope > .entry-edge[data-direction="${side}"]`);
  // From that end inwards, past its edge item if it has one.
  const inward = side === 'earlier' ? 'nextElementSibling' : 'previousElementSibling';
  let row = edge ? edge[inward] : (side === 'earlier' ? list.firstElementChild : list.lastElementChild);
  for (let removed = 0; row && removed < excess; removed += 1) {
    const next = row[inward];
    row.remove();
    row = next;
  }
  // Thumbnails are kept for re-renders of rows in the window, not for every image ever shown.
  if (thumbnails.size > 2 * MAX_ROWS) {
    for (const [key, img] of thumbnails) if (!img.isConnected) thumbnails.delete(key);
  }
  if (side === 'earlier') {
    windowStart += excess;
    if (!edge) list.prepend(edgeItem('earlier'));
  } else {
    windowEnd -= excess;
    if (!edge) list.append(edgeItem('more'));
  }
}

/** "2 folders, 5 files, 12.5 MiB" (of what the filter lets through, when one is typed). */
function summary(entries, shown, filtered) {
  const files = shown.filter((entry) => entry.type !== 'directory');
  const folders = shown.length - files.length;
  const bytes = files.reduce((sum, entry) => sum + (Number(entry.size) || 0), 0);
  const parts = [];
  if (folders > 0) parts.push(tn('files.folders', folders));
  parts.push(t('files.summary', { files: tn('files.files', files.length), size: formatBytes(bytes) }));
  const text = parts.join(', ');
  return filtered ? t('files.filtered', { summary: text, shown: shown.length, total: entries.length }) : text;
}

function renderEntry(entry) {
  const li = document.createElement('li');
  li.className = `entry ${entry.type === 'directory' ? 'entry-folder' : 'entry-file'}`;
  li.append(entry.type === 'directory' ? icon() : thumbnail(entry) || icon());

  let link;
  if (entry.type === 'directory') {
    link = folderLink(entry.url, entry.name);
  } else {
    link = document.createElement('a');
    link.href = entry.url;
    link.download = '';
    link.textContent = entry.name;
  }
  link.className = 'entry-name';

  const details = document.createElement('span');
  details.className = 'entry-details';
  if (entry.type === 'directory') {
    details.textContent = t('files.folder');
  } else {
    const size = document.createElement('span');
    size.textContent = formatBytes(Number(entry.size));
    const time = document.createElement('time');
    if (entry.mtime) time.dateTime = entry.mtime;
    time.textContent = formatTime(entry.mtime);
    details.append(size, time);
  }
  li.append(link, details);
  for (const decorate of entryDecorators) decorate(li, entry);
  return li;
}

function icon() {
  const span = document.createElement('span');
  span.className = 'entry-icon';
  span.setAttribute('aria-hidden', 'true');
  return span;
}

/** The file itself as a lazy <img>, kept across re-renders so a sort or a poll loads nothing again. */
function thumbnail(entry) {
  if (!THUMBNAIL_TYPES.test(entry.name) || !(Number(entry.size) <= THUMBNAIL_MAX_BYTES)) return null;
  const key = `${entry.url} ${entry.mtime || ''}`;
  let img = thumbnails.get(key);
  if (!img) {
    img = document.createElement('img');
    img.className = 'entry-thumbnail';
    img.alt = '';
    img.loading = 'lazy';
    img.decoding = 'async';
    img.width = 40;
    img.height = 40;
    // The file is asked for once its row is on screen, not as soon as it is near: a list
    // scrolled fast past thousands of photos would otherwise load hundreds at a time.
    img.dataset.src = entry.url;
    if (!thumbnailObserver) {
      thumbnailObserver = new IntersectionObserver((seen) => {
        for (const item of seen) {
          if (!item.isIntersecting) continue;
          thumbnailObserver.unobserve(item.target);
          item.target.src = item.target.dataset.src;
        }
      });
    }
    thumbnailObserver.observe(img);
    thumbnails.set(key, img);
  }
  return img;
}

/** Polls while the page is visible; a hidden tab costs the server nothing. */
export function startListing() {
  const rerender = () => {
    windowStart = 0;
    windowEnd = 0;
    renderListing();
  };
  $('sort').addEventListener('change', rerender);
  $('filter').addEventListener('input', rerender);
  const startPolling = () => {
    clearInterval(pollTimer);
    pollTimer = setInterval(() => refreshListing({ poll: true }), POLL_INTERVAL_MS);
  };
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') {
      refreshListing();
      startPolling();
    } else {
      clearInterval(pollTimer);
      pollTimer = 0;
    }
  });
  window.addEventListener('popstate', () => openFolder(folderFromHash(), { push: false }));
  if (document.visibilityState === 'visible') startPolling();
  openFolder(folderFromHash(), { push: false });
}
