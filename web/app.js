// filedrop page: an upload queue (XMLHttpRequest, three at a time, one file per request) and a
// live listing of the shared files. The listing is refreshed by polling `?format=json` every 5 s
// while the page is visible: polling keeps the server free of long-lived connections and works
// through any proxy; Server-Sent Events can come later without changing the rendering code.
//
// Every string that comes from the server or from a file name reaches the page through
// textContent or DOM properties, never innerHTML; links use the server's `url` fields as given.
//
// Big files go up with tus (tus.js) when the server offers it: in chunks, retried and resumed.
//
// The JSON this page reads (config.json, listings, upload reports, errors) is declared once, by
// the golden files in Tests/Fixtures/json; test_page_wire_format.py feeds them to this page.

import { TusUpload, TUS_THRESHOLD, isAborted } from './tus.js';

const UPLOAD_URL = 'upload.html';
const CONFIG_URL = 'config.json';
const ROOT_LISTING_URL = new URL('files/', document.baseURI).pathname;
const PARALLEL_UPLOADS = 3;
const POLL_INTERVAL_MS = 5000;
const SPEED_WINDOW_MS = 750;

const $ = (id) => document.getElementById(id);

document.documentElement.classList.add('js');

/** Server limits and title; defaults hold when /config.json is missing. `https` is set when
 *  the server speaks HTTPS: whether this page came over it, its HTTPS address, its CA. */
const config = { title: 'filedrop', maxUploadSize: null, tus: false, access: 'open', https: null };

// ---------------------------------------------------------------------------------------------
// Formatting

/** Bytes in SI units ("1.5 MB"), the way phones and macOS count them. */
function formatBytes(bytes) {
  if (!Number.isFinite(bytes)) return '';
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB', 'PB'];
  let value = bytes;
  let unit = -1;
  do { value /= 1000; unit += 1; } while (value >= 1000 && unit < units.length - 1);
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

function formatDuration(seconds) {
  if (!Number.isFinite(seconds) || seconds < 0) return '';
  const s = Math.ceil(seconds);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function formatTime(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : dateFormat.format(date);
}

// ---------------------------------------------------------------------------------------------
// Announcements for screen readers

let announceTimer = 0;

/** Says `message` through the polite live region; repeated calls within a moment are joined. */
function announce(message) {
  const region = $('announcer');
  const pending = region.dataset.pending ? `${region.dataset.pending} ` : '';
  region.dataset.pending = `${pending}${message}`;
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => {
    region.textContent = region.dataset.pending;
    region.dataset.pending = '';
  }, 400);
}

// ---------------------------------------------------------------------------------------------
// Error messages in plain words

/** Turns a failed upload (HTTP status, optional server sentence) into what the person reads. */
function describeFailure(status, serverSentence) {
  const plain = {
    0: 'Connection lost',
    401: 'A password is needed',
    409: 'A file with this name already exists',
    413: config.maxUploadSize
      ? `Too large: the server accepts at most ${formatBytes(config.maxUploadSize)}`
      : 'Too large for the server',
    507: "The server's disk is full",
  }[status];
  const sentence = typeof serverSentence === 'string' ? serverSentence.trim() : '';
  if (plain) return { message: plain, detail: sentence !== plain ? sentence : '' };
  if (sentence) return { message: sentence, detail: '' };
  return { message: `The server refused the file (error ${status})`, detail: '' };
}

// ---------------------------------------------------------------------------------------------
// Upload queue

/** One file on its way: its state drives both the row and the overall progress. */
class UploadItem {
  static nextId = 1;

  constructor(file, relativePath) {
    this.id = UploadItem.nextId++;
    this.file = file;
    this.relativePath = relativePath;
    this.state = 'queued';
    this.loaded = 0;
    this.total = file.size;
    this.xhr = null;
    this.tus = null;
    this.resuming = false;
    this.speed = 0;
    this.sample = { time: 0, loaded: 0 };
    this.failure = null;
    this.stored = null;
    this.row = createRow(this);
  }

  get displayName() { return this.relativePath || this.file.name; }
  get finished() { return this.state === 'done' || this.state === 'failed' || this.state === 'cancelled'; }
}

const queue = [];
let running = 0;

function enqueue(entries) {
  if (entries.length === 0) return;
  for (const { file, relativePath } of entries) {
    const item = new UploadItem(file, relativePath);
    queue.push(item);
    $('queue-list').append(item.row.element);
    if (config.maxUploadSize !== null && file.size > config.maxUploadSize) {
      fail(item, 413, '', false);
    }
  }
  $('queue').hidden = false;
  announce(entries.length === 1 ? `${entries[0].file.name} added to the uploads.`
                                 : `${entries.length} files added to the uploads.`);
  pump();
  renderOverall();
}

/** Starts queued uploads until PARALLEL_UPLOADS are running. */
function pump() {
  for (const item of queue) {
    if (running >= PARALLEL_UPLOADS) break;
    if (item.state === 'queued') start(item);
  }
}

function start(item) {
  running += 1;
  item.state = 'uploading';
  item.loaded = 0;
  item.speed = 0;
  item.failure = null;
  item.sample = { time: performance.now(), loaded: 0 };
  if (config.tus && item.file.size >= TUS_THRESHOLD) {
    startResumable(item);
    renderRow(item);
    return;
  }

  // The relativePath field must precede its file part: the server reads it first.
  const body = new FormData();
  if (item.relativePath) body.append('relativePath', item.relativePath);
  body.append('file', item.file, item.file.name);

  const xhr = new XMLHttpRequest();
  item.xhr = xhr;
  xhr.open('POST', UPLOAD_URL);
  xhr.setRequestHeader('Accept', 'application/json');
  xhr.upload.addEventListener('progress', (event) => {
    if (event.lengthComputable) progress(item, event.loaded, event.total);
  });
  xhr.addEventListener('load', () => settle(item, xhr.status, xhr.responseText));
  xhr.addEventListener('error', () => settleFailure(item, 0, ''));
  xhr.addEventListener('timeout', () => settleFailure(item, 0, ''));
  xhr.addEventListener('abort', () => settleCancel(item));
  xhr.send(body);
  renderRow(item);
}

/** A big file over tus: survives dropped connections and page reloads ("resuming"). */
function startResumable(item) {
  const upload = new TusUpload(item.file, {
    relativePath: item.relativePath,
    onProgress: (loaded) => progress(item, loaded, item.total),
    onResuming: (resuming) => { item.resuming = resuming; scheduleRender(item); },
  });
  item.tus = upload;
  upload.start().then(
    () => { item.resuming = false; settle(item, 201, ''); },
    (error) => {
      item.resuming = false;
      if (!isAborted(error)) settleFailure(item, error.status || 0, error.status ? error.message : '');
    },
  );
}

function progress(item, loaded, total) {
  // The multipart body is a little larger than the file; scale to the file's own size.
  item.loaded = total > 0 ? Math.min(item.total, Math.round(item.total * loaded / total)) : 0;
  const now = performance.now();
  const elapsed = now - item.sample.time;
  if (elapsed >= SPEED_WINDOW_MS) {
    const instant = (item.loaded - item.sample.loaded) / (elapsed / 1000);
    item.speed = item.speed === 0 ? instant : item.speed * 0.6 + instant * 0.4;
    item.sample = { time: now, loaded: item.loaded };
  }
  scheduleRender(item);
}

function parseJSON(text) {
  try { return JSON.parse(text); } catch { return null; }
}

/** An upload's answer: Tests/Fixtures/json/upload.json, or error-400.json for a refusal. */
function settle(item, status, text) {
  const reply = parseJSON(text);
  if (status < 200 || status >= 300) {
    settleFailure(item, status, reply && reply.error);
    return;
  }
  const rejected = reply && Array.isArray(reply.errors) ? reply.errors[0] : null;
  if (rejected) {
    settleFailure(item, Number(rejected.status) || status, rejected.message);
    return;
  }
  finish(item);
  item.state = 'done';
  item.loaded = item.total;
  item.stored = reply && Array.isArray(reply.files) ? reply.files[0] || null : null;
  renderRow(item);
  renderOverall();
  announce(`${item.displayName} uploaded.`);
  refreshListingSoon();
  pump();
}

function settleFailure(item, status, serverSentence) {
  if (item.state !== 'uploading') return;
  finish(item);
  fail(item, status, serverSentence, true);
  pump();
}

function fail(item, status, serverSentence, retryable) {
  item.state = 'failed';
  item.failure = { ...describeFailure(status, serverSentence), retryable };
  renderRow(item);
  renderOverall();
  announce(`${item.displayName} failed: ${item.failure.message}.`);
}

function settleCancel(item) {
  if (item.state !== 'uploading') return;
  finish(item);
  item.state = 'cancelled';
  renderRow(item);
  renderOverall();
  announce(`${item.displayName} cancelled.`);
  pump();
}

function finish(item) {
  running -= 1;
  item.xhr = null;
  item.tus = null;
  item.speed = 0;
}

function cancel(item) {
  if (item.state === 'uploading' && item.tus) {
    item.tus.cancel();
    settleCancel(item);
  } else if (item.state === 'uploading') {
    item.xhr.abort();
  } else if (item.state === 'queued') {
    item.state = 'cancelled';
    renderRow(item);
    renderOverall();
    announce(`${item.displayName} cancelled.`);
  }
}

function retry(item) {
  if (item.state !== 'failed' && item.state !== 'cancelled') return;
  item.state = 'queued';
  item.loaded = 0;
  item.failure = null;
  renderRow(item);
  pump();
  renderOverall();
}

function remove(item) {
  if (!item.finished) return;
  queue.splice(queue.indexOf(item), 1);
  item.row.element.remove();
  if (queue.length === 0) $('queue').hidden = true;
  renderOverall();
}

// ---------------------------------------------------------------------------------------------
// Queue rendering

/** Builds the DOM of one upload row; texts are filled in by renderRow. */
function createRow(item) {
  const element = document.createElement('li');
  element.className = 'upload';
  const head = document.createElement('div');
  head.className = 'upload-head';
  const name = document.createElement('span');
  name.className = 'upload-name';
  name.textContent = item.displayName;
  const state = document.createElement('span');
  state.className = 'upload-state';
  head.append(name, state);

  const bar = document.createElement('progress');
  bar.max = Math.max(item.total, 1);
  bar.value = 0;
  bar.setAttribute('aria-label', `Upload progress of ${item.displayName}`);

  const foot = document.createElement('div');
  foot.className = 'upload-foot';
  const meta = document.createElement('span');
  meta.className = 'upload-meta';
  const actions = document.createElement('span');
  actions.className = 'upload-actions';
  foot.append(meta, actions);

  const error = document.createElement('p');
  error.className = 'upload-error';
  const message = document.createElement('span');
  message.className = 'upload-error-message';
  const detail = document.createElement('span');
  detail.className = 'upload-error-detail';
  error.append(message, detail);

  const makeButton = (label, handler, kind) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = `button small ${kind}`;
    button.textContent = label;
    button.setAttribute('aria-label', `${label} ${item.displayName}`);
    button.addEventListener('click', () => handler(item));
    return button;
  };
  const buttons = {
    cancel: makeButton('Cancel', cancel, 'secondary'),
    retry: makeButton('Retry', retry, 'primary'),
    remove: makeButton('Remove', remove, 'ghost'),
  };
  element.append(head, bar, foot, error);
  return { element, state, bar, meta, actions, error, message, detail, buttons };
}

const dirtyRows = new Set();
let renderFrame = 0;

function scheduleRender(item) {
  dirtyRows.add(item);
  if (renderFrame) return;
  renderFrame = requestAnimationFrame(() => {
    renderFrame = 0;
    for (const dirty of dirtyRows) renderRow(dirty);
    dirtyRows.clear();
    renderOverall();
  });
}

const STATE_LABELS = {
  queued: 'Waiting', uploading: 'Uploading', done: 'Done', failed: 'Failed', cancelled: 'Cancelled',
};

function renderRow(item) {
  const row = item.row;
  row.element.dataset.state = item.state;
  row.state.textContent = item.state === 'uploading'
    ? `${Math.floor(100 * item.loaded / Math.max(item.total, 1))} %`
    : STATE_LABELS[item.state];
  row.bar.value = item.state === 'done' ? row.bar.max : item.loaded;

  const parts = [];
  if (item.state === 'uploading' && item.resuming) parts.push('resuming…');
  if (item.state === 'uploading') {
    parts.push(`${formatBytes(item.loaded)} of ${formatBytes(item.total)}`);
    if (item.speed > 0) {
      parts.push(`${formatBytes(item.speed)}/s`);
      parts.push(`${formatDuration((item.total - item.loaded) / item.speed)} left`);
    }
  } else if (item.state === 'done' && item.stored && item.stored.name && item.stored.name !== item.file.name) {
    parts.push(`${formatBytes(item.total)}, saved as ${item.stored.name}`);
  } else {
    parts.push(formatBytes(item.total));
  }
  row.meta.textContent = parts.join(' · ');

  row.message.textContent = item.failure ? item.failure.message : '';
  row.detail.textContent = item.failure ? item.failure.detail : '';
  row.error.hidden = !item.failure;

  const wanted = [];
  if (item.state === 'queued' || item.state === 'uploading') wanted.push(row.buttons.cancel);
  if (item.state === 'cancelled' || (item.state === 'failed' && item.failure && item.failure.retryable)) {
    wanted.push(row.buttons.retry);
  }
  if (item.finished) wanted.push(row.buttons.remove);
  const current = [...row.actions.children];
  if (current.length !== wanted.length || current.some((button, i) => button !== wanted[i])) {
    const hadFocus = current.includes(document.activeElement);
    row.actions.replaceChildren(...wanted);
    if (hadFocus && wanted.length > 0) wanted[0].focus();
  }
}

let queueWasBusy = false;

function renderOverall() {
  // Files count every upload but cancelled ones; bytes count only what is sent or being sent.
  const counted = queue.filter((item) => item.state !== 'cancelled');
  const sending = counted.filter((item) => item.state !== 'failed');
  const total = sending.reduce((sum, item) => sum + item.total, 0);
  const loaded = sending.reduce((sum, item) => sum + (item.state === 'done' ? item.total : item.loaded), 0);
  const done = counted.filter((item) => item.state === 'done').length;
  const failed = counted.length - sending.length;
  const active = queue.filter((item) => item.state === 'uploading' || item.state === 'queued');
  const speed = active.reduce((sum, item) => sum + item.speed, 0);

  const bar = $('overall-progress');
  const allSettled = active.length === 0;
  bar.max = Math.max(total, 1);
  bar.value = allSettled && sending.length > 0 ? bar.max : loaded;

  const parts = [`${done} of ${counted.length} ${counted.length === 1 ? 'file' : 'files'} uploaded`];
  if (failed > 0) parts.push(`${failed} failed`);
  parts.push(`${formatBytes(loaded)} of ${formatBytes(total)}`);
  if (!allSettled && speed > 0) {
    const remaining = active.reduce((sum, item) => sum + item.total - item.loaded, 0);
    parts.push(`${formatBytes(speed)}/s`, `${formatDuration(remaining / speed)} left`);
  }
  $('overall-text').textContent = parts.join(' · ');
  $('clear-finished').hidden = !queue.some((item) => item.finished);

  if (queueWasBusy && allSettled && counted.length > 1) {
    announce(failed > 0 ? `Uploads finished: ${done} uploaded, ${failed} failed.` : `All ${done} uploads finished.`);
  }
  queueWasBusy = !allSettled;
}

// ---------------------------------------------------------------------------------------------
// Collecting files: pickers, drag and drop (with folders), paste

/** Files picked with an <input>; folder pickers carry webkitRelativePath. */
function entriesFromFileList(files) {
  return [...files].map((file) => ({ file, relativePath: file.webkitRelativePath || '' }));
}

function readAllEntries(directory) {
  const reader = directory.createReader();
  const all = [];
  return new Promise((resolve, reject) => {
    // readEntries hands out batches (about 100); an empty batch means the end.
    const next = () => reader.readEntries((batch) => {
      if (batch.length === 0) { resolve(all); return; }
      all.push(...batch);
      next();
    }, reject);
    next();
  });
}

/** Walks a dropped file-system entry, giving each file its path relative to the drop. */
async function walkEntry(entry, out) {
  if (entry.isFile) {
    const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
    const path = entry.fullPath.replace(/^\/+/, '');
    out.push({ file, relativePath: path.includes('/') ? path : '' });
  } else if (entry.isDirectory) {
    for (const child of await readAllEntries(entry)) await walkEntry(child, out);
  }
}

async function entriesFromDrop(dataTransfer) {
  // webkitGetAsEntry only works during the drop event, so collect the entries before awaiting.
  const roots = [...(dataTransfer.items || [])]
    .filter((item) => item.kind === 'file')
    .map((item) => (item.webkitGetAsEntry ? item.webkitGetAsEntry() : null));
  if (roots.length === 0 || roots.some((entry) => entry === null)) {
    return entriesFromFileList(dataTransfer.files);
  }
  const out = [];
  for (const root of roots) {
    try {
      await walkEntry(root, out);
    } catch {
      announce(`Could not read ${root.name}.`);
    }
  }
  return out;
}

function setUpPickers() {
  const fileInput = $('file-input');
  const folderInput = $('folder-input');
  const dropzone = $('dropzone');

  const takeFrom = (input) => {
    enqueue(entriesFromFileList(input.files));
    input.value = '';
  };
  fileInput.addEventListener('change', () => takeFrom(fileInput));
  folderInput.addEventListener('change', () => takeFrom(folderInput));
  $('upload-form').addEventListener('submit', (event) => {
    event.preventDefault();
    takeFrom(fileInput);
  });

  dropzone.addEventListener('click', () => fileInput.click());
  dropzone.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      fileInput.click();
    }
  });
  dropzone.setAttribute('aria-label', 'Choose files to upload, or drop files and folders here');

  if ('webkitdirectory' in folderInput) {
    $('folder-button').addEventListener('click', () => folderInput.click());
  } else {
    $('folder-button').hidden = true;
  }

  // Dragging over any part of the page counts; the counter copes with nested dragenter/leave.
  let depth = 0;
  const carriesFiles = (event) => [...(event.dataTransfer?.types || [])].includes('Files');
  document.addEventListener('dragenter', (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    depth += 1;
    dropzone.classList.add('dragging');
  });
  document.addEventListener('dragover', (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
  });
  document.addEventListener('dragleave', (event) => {
    if (!carriesFiles(event)) return;
    depth = Math.max(0, depth - 1);
    if (depth === 0) dropzone.classList.remove('dragging');
  });
  document.addEventListener('drop', async (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    depth = 0;
    dropzone.classList.remove('dragging');
    enqueue(await entriesFromDrop(event.dataTransfer));
  });

  document.addEventListener('paste', (event) => {
    const files = event.clipboardData ? event.clipboardData.files : [];
    if (files.length === 0) return;
    event.preventDefault();
    enqueue(entriesFromFileList(files));
  });

  $('clear-finished').addEventListener('click', () => {
    for (const item of queue.filter((candidate) => candidate.state === 'done')) remove(item);
  });

  window.addEventListener('beforeunload', (event) => {
    if (queue.some((item) => item.state === 'uploading' || item.state === 'queued')) {
      event.preventDefault();
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Listing of shared files

/** The folder shown: the server's own URL for it (from a `url` field), never built from names. */
let currentFolderUrl = ROOT_LISTING_URL;
let lastListingText = '';
// The ETag of lastListingText: each poll sends it, and an unchanged folder costs a 304.
let lastListingETag = '';
let listingRequest = null;
let refreshTimer = 0;
let pollTimer = 0;

function folderFromHash() {
  const match = /^#folder=(.+)$/.exec(location.hash);
  if (!match) return ROOT_LISTING_URL;
  const url = new URL(decodeURIComponent(match[1]), location.href);
  const inside = url.origin === location.origin && url.pathname.startsWith(ROOT_LISTING_URL)
    && url.pathname.endsWith('/');
  return inside ? url.pathname : ROOT_LISTING_URL;
}

function openFolder(url, { push }) {
  currentFolderUrl = url;
  lastListingText = '';
  lastListingETag = '';
  if (push) {
    const hash = url === ROOT_LISTING_URL ? '' : `#folder=${encodeURIComponent(url)}`;
    history.pushState(null, '', hash || location.pathname + location.search);
  }
  refreshListing();
}

async function refreshListing() {
  if (listingRequest) listingRequest.abort();
  const controller = new AbortController();
  listingRequest = controller;
  const folder = currentFolderUrl;
  const url = new URL(folder, location.href);
  url.searchParams.set('format', 'json');
  try {
    // A drop box lists only for its owner: ask without credentials, so visitors get the
    // sentence below instead of a browser password prompt on every poll.
    const credentials = config.access === 'drop' ? 'omit' : 'same-origin';
    const headers = { Accept: 'application/json' };
    if (lastListingETag) headers['If-None-Match'] = lastListingETag;
    // 'no-store' keeps the browser cache out of it, so a 304 reaches this code as it is.
    const response = await fetch(url, { headers, signal: controller.signal, cache: 'no-store', credentials });
    if (response.status === 304) return;
    const text = await response.text();
    if (response.status === 401) {
      showListingStatus('Listing needs a password: open /files/ to sign in.');
      return;
    }
    if (!response.ok) {
      const reply = parseJSON(text);
      if (response.status === 404 && folder !== ROOT_LISTING_URL) {
        openFolder(ROOT_LISTING_URL, { push: true });
        return;
      }
      showListingStatus(reply && reply.error ? reply.error : `The list could not be loaded (error ${response.status}).`);
      return;
    }
    if (text === lastListingText) return;
    const listing = parseJSON(text);
    if (!listing || !Array.isArray(listing.entries)) {
      showListingStatus('The list could not be read.');
      return;
    }
    lastListingText = text;
    lastListingETag = response.headers.get('ETag') || '';
    renderListing(folder, listing);
  } catch (error) {
    if (error.name !== 'AbortError') showListingStatus('The list could not be loaded: connection lost.');
  } finally {
    if (listingRequest === controller) listingRequest = null;
  }
}

function refreshListingSoon() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refreshListing, 250);
}

function showListingStatus(text) {
  lastListingText = '';
  lastListingETag = '';
  $('files-status').textContent = text;
}

/** Breadcrumb: ancestors are prefixes of the server's folder URL; labels are the decoded names. */
function renderBreadcrumb(folder, listingPath) {
  const list = $('breadcrumb-list');
  const rootSegments = ROOT_LISTING_URL.split('/').filter(Boolean).length;
  const urlSegments = folder.split('/').filter(Boolean).slice(rootSegments);
  const pathNames = typeof listingPath === 'string' ? listingPath.split('/').filter(Boolean) : [];
  const names = pathNames.length === urlSegments.length
    ? pathNames
    : urlSegments.map((segment) => { try { return decodeURIComponent(segment); } catch { return segment; } });

  const crumbs = [{ label: 'All files', url: ROOT_LISTING_URL }];
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
      here.textContent = crumb.label;
      li.append(here);
    } else {
      li.append(folderLink(crumb.url, crumb.label));
    }
    return li;
  });
  list.replaceChildren(...items);
}

function folderLink(url, label) {
  const link = document.createElement('a');
  link.href = `#folder=${encodeURIComponent(url)}`;
  link.textContent = label;
  link.addEventListener('click', (event) => {
    event.preventDefault();
    openFolder(url, { push: true });
  });
  return link;
}

/** `listing` as Tests/Fixtures/json/listing.json declares it. */
function renderListing(folder, listing) {
  renderBreadcrumb(folder, listing.path);

  const zip = new URL(folder, location.href);
  zip.search = 'zip';
  $('zip-link').href = zip.pathname + zip.search;

  const entries = listing.entries.filter((entry) => entry && typeof entry.name === 'string' && typeof entry.url === 'string');
  entries.sort((a, b) => {
    const aDir = a.type === 'directory';
    const bDir = b.type === 'directory';
    if (aDir !== bDir) return aDir ? -1 : 1;
    if (aDir) return a.name.localeCompare(b.name);
    return String(b.mtime || '').localeCompare(String(a.mtime || '')) || a.name.localeCompare(b.name);
  });

  $('zip-link').hidden = entries.length === 0;
  $('files-status').textContent = entries.length === 0
    ? (folder === ROOT_LISTING_URL ? 'No files yet. Files you send appear here.' : 'This folder is empty.')
    : '';
  $('file-list').replaceChildren(...entries.map(renderEntry));
}

function renderEntry(entry) {
  const li = document.createElement('li');
  li.className = `entry ${entry.type === 'directory' ? 'entry-folder' : 'entry-file'}`;

  const icon = document.createElement('span');
  icon.className = 'entry-icon';
  icon.setAttribute('aria-hidden', 'true');

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
    details.textContent = 'Folder';
  } else {
    const size = document.createElement('span');
    size.textContent = formatBytes(Number(entry.size));
    const time = document.createElement('time');
    if (entry.mtime) time.dateTime = entry.mtime;
    time.textContent = formatTime(entry.mtime);
    details.append(size, time);
  }
  li.append(icon, link, details);
  return li;
}

/** Polls while the page is visible; a hidden tab costs the server nothing. */
function setUpPolling() {
  const startPolling = () => {
    clearInterval(pollTimer);
    pollTimer = setInterval(refreshListing, POLL_INTERVAL_MS);
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
}

// ---------------------------------------------------------------------------------------------
// Start-up

/** Tests/Fixtures/json/config.json and config-https.json declare what the server sends. */
async function loadConfig() {
  try {
    const response = await fetch(CONFIG_URL, { headers: { Accept: 'application/json' }, cache: 'no-store' });
    if (!response.ok) return;
    const reply = await response.json();
    if (typeof reply.title === 'string' && reply.title.trim()) config.title = reply.title.trim();
    if (Number.isFinite(reply.maxUploadSize) && reply.maxUploadSize > 0) config.maxUploadSize = reply.maxUploadSize;
    config.tus = reply.tus === true;
    if (typeof reply.access === 'string') config.access = reply.access;
    if (reply.https && typeof reply.https === 'object') config.https = reply.https;
  } catch {
    // No configuration: keep the defaults.
  }
  $('title').textContent = config.title;
  document.title = config.title;
  $('limit-note').textContent = config.maxUploadSize ? `Up to ${formatBytes(config.maxUploadSize)} per file` : '';
  showConnectionNote();
}

/** The footer line about the connection, when the server speaks HTTPS: over HTTPS with the
 *  server's own CA, its fingerprint and how to trust it; over plain HTTP, that nothing is
 *  encrypted and where the HTTPS page is. */
function showConnectionNote() {
  const https = config.https;
  if (!https) return;
  const note = $('connection-note');
  const link = document.createElement('a');
  if (https.secure === true) {
    if (!https.localCA || typeof https.fingerprint !== 'string') return;
    const fingerprint = document.createElement('span');
    fingerprint.className = 'fingerprint';
    fingerprint.textContent = https.fingerprint;
    note.replaceChildren('Secure connection · certificate fingerprint ', fingerprint, ' · ', link);
    link.href = 'trust';
    link.textContent = 'How to trust this server';
  } else {
    if (typeof https.url !== 'string' || !https.url.startsWith('https://')) return;
    note.replaceChildren('This connection is not encrypted: others on the network can see the files. ', link);
    link.href = https.url;
    link.textContent = 'Open this page over HTTPS';
  }
  note.hidden = false;
}

setUpPickers();
setUpPolling();
currentFolderUrl = folderFromHash();
// The access mode decides how the listing is asked for, so the configuration comes first.
loadConfig().finally(refreshListing);
