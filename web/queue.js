// The upload queue: XMLHttpRequest, three at a time, one file per request; big files over tus
// (tus.js) when the server offers it. Each file goes to the folder that was open when it was
// added. Rows are rendered by queue-view.js; this file holds the states and their changes.

import { config } from './config.js';
import { announce } from './announce.js';
import { formatBytes, storedNameFromURL } from './format.js';
import { t } from './i18n.js';
import { unfinishedUploadOf } from './resume-store.js';
import { createRow, renderRow, renderOverall, scheduleRender, focusAfterRemoving } from './queue-view.js';

const UPLOAD_URL = 'upload.html';
const FILES_ROOT = new URL('files/', document.baseURI).pathname;
const PARALLEL_UPLOADS = 3;
/** Files at least this big go up with tus (tus.js); smaller ones in one plain request. */
const TUS_THRESHOLD = 8 * 1024 * 1024;
const SPEED_WINDOW_MS = 750;
/** No byte for this long: the speed shown is zero, not the last one measured. */
export const STALL_MS = 3000;

/** Statuses worth a Retry: the network, a busy or failing server. A 4xx refusal (a name that
 *  exists under `reject`, a read-only server, a file over the limit) would be refused again. */
function isRetryable(status) {
  return status === 0 || status === 408 || status === 429 || status >= 500;
}

/** Turns a failed upload (HTTP status, optional server sentence) into what the person reads:
 *  plain words for what has them, and the server's own sentence (it names the rule) below,
 *  unless it says the same thing again. */
function describeFailure(status, serverSentence) {
  const sentence = typeof serverSentence === 'string' ? serverSentence.trim() : '';
  const plain = {
    0: t('queue.connectionLost'),
    401: t('queue.passwordNeeded'),
    409: t('queue.exists'),
    413: config.maxUploadSize ? t('queue.tooLargeLimit', { size: formatBytes(config.maxUploadSize) }) : t('queue.tooLarge'),
    507: t('queue.diskFull'),
  }[status];
  if (!plain) return { message: sentence || t('queue.refused', { status }), detail: '' };
  const same = (a, b) => a.replace(/[.\s]+$/, '').toLowerCase() === b.replace(/[.\s]+$/, '').toLowerCase();
  // A known limit is already in the plain words; the server's sentence would repeat it.
  const repeats = !sentence || same(sentence, plain) || (status === 413 && config.maxUploadSize);
  return { message: plain, detail: repeats ? '' : sentence };
}

/** One file on its way: its state drives both the row and the overall progress. */
export class UploadItem {
  static nextId = 1;

  /** `folder`: the path below /files/ of the folder it goes to, "" or ending in "/". */
  constructor(file, relativePath, folder) {
    this.id = UploadItem.nextId++;
    this.file = file;
    this.relativePath = relativePath;
    this.folder = folder;
    this.targetPath = folder + (relativePath || file.name);
    this.state = 'queued';
    this.loaded = 0;
    this.total = file.size;
    this.xhr = null;
    this.tus = null;
    this.resuming = false;
    this.speed = 0;
    this.sample = { time: 0, loaded: 0 };
    this.lastProgress = 0;
    this.failure = null;
    /** What the server saved it as, when that differs from `targetPath` (a renamed copy). */
    this.savedAs = '';
    /** The server's sentence when the file was stored but its form was refused after it. */
    this.note = '';
    this.row = createRow(this, { cancel, retry, remove });
  }

  get displayName() { return this.relativePath || this.file.name; }
  get finished() { return this.state === 'done' || this.state === 'failed' || this.state === 'cancelled'; }
  get active() { return this.state === 'uploading' || this.state === 'queued'; }

  /** Bytes per second sent in this session; zero while nothing moves. */
  currentSpeed(now = performance.now()) {
    if (this.state !== 'uploading' || this.resuming || now - this.lastProgress > STALL_MS) return 0;
    return this.speed;
  }
}

export const queue = [];
let running = 0;
const hooks = { uploaded: () => {}, busyChanged: () => {} };

export function onQueueEvents({ uploaded, busyChanged }) {
  hooks.uploaded = uploaded;
  hooks.busyChanged = busyChanged;
}

export function isBusy() {
  return queue.some((item) => item.active);
}

/** `entries`: `{ file, relativePath }`; `folder`: where they go (see UploadItem). */
export function enqueue(entries, folder) {
  if (entries.length === 0) return;
  for (const { file, relativePath } of entries) {
    const item = new UploadItem(file, relativePath, folder);
    queue.push(item);
    document.getElementById('queue-list').append(item.row.element);
    if (config.maxUploadSize !== null && file.size > config.maxUploadSize) fail(item, 413, '');
  }
  document.getElementById('queue').hidden = false;
  announce(entries.length === 1 ? t('queue.added', { name: entries[0].file.name })
                                 : t('queue.addedMany', { count: entries.length }));
  pump();
  renderOverall(queue);
  hooks.busyChanged();
}

/** Starts queued uploads until PARALLEL_UPLOADS are running. */
function pump() {
  for (const item of queue) {
    if (running >= PARALLEL_UPLOADS) break;
    if (item.state === 'queued') start(item);
  }
  watchForStalls();
  hooks.busyChanged();
}

let stallTimer = 0;

/** Once a second while uploading, so a speed with no bytes behind it is taken off the screen. */
function watchForStalls() {
  if (running > 0 && !stallTimer) {
    stallTimer = setInterval(() => {
      for (const item of queue) if (item.state === 'uploading') scheduleRender(item, queue);
    }, 1000);
  } else if (running === 0 && stallTimer) {
    clearInterval(stallTimer);
    stallTimer = 0;
  }
}

function start(item) {
  running += 1;
  item.state = 'uploading';
  item.loaded = 0;
  item.speed = 0;
  item.failure = null;
  item.savedAs = '';
  item.note = '';
  item.sample = { time: performance.now(), loaded: 0 };
  item.lastProgress = performance.now();
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
  const folder = item.folder.replace(/\/$/, '');
  xhr.open('POST', folder ? `${UPLOAD_URL}?path=${encodeURIComponent(folder)}` : UPLOAD_URL);
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

/** A big file over tus: survives dropped connections and page reloads ("resuming"). A file
 *  remembered from an earlier visit goes on to where it was going then. The tus client is
 *  loaded with the first big file: most visits send small files and never need it. */
async function startResumable(item) {
  let tus;
  try {
    tus = await import('./tus.js');
  } catch {
    // Offline, or the server gone: the same failure (and Retry) as a lost connection.
    settleFailure(item, 0, '');
    return;
  }
  const { TusUpload, isAborted } = tus;
  const remembered = await unfinishedUploadOf(item.file);
  if (item.state !== 'uploading') return;
  if (remembered && typeof remembered.targetPath === 'string') item.targetPath = remembered.targetPath;
  const upload = new TusUpload(item.file, {
    targetPath: item.targetPath,
    onProgress: (loaded) => progress(item, loaded, item.total),
    onOffset: (offset) => serverHas(item, offset),
    onResuming: (resuming) => {
      item.resuming = resuming;
      item.sample = { time: performance.now(), loaded: item.loaded };
      scheduleRender(item, queue);
    },
  });
  item.tus = upload;
  upload.start().then(
    () => { item.resuming = false; settle(item, 201, '', upload.savedAs); },
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
  item.lastProgress = now;
  const elapsed = now - item.sample.time;
  if (elapsed >= SPEED_WINDOW_MS) {
    const instant = Math.max(0, item.loaded - item.sample.loaded) / (elapsed / 1000);
    item.speed = item.speed === 0 ? instant : item.speed * 0.6 + instant * 0.4;
    item.sample = { time: now, loaded: item.loaded };
  }
  scheduleRender(item, queue);
}

/** The server already holds `offset` bytes (a resumed upload): progress, but no speed. */
function serverHas(item, offset) {
  item.loaded = Math.min(item.total, offset);
  item.speed = 0;
  item.sample = { time: performance.now(), loaded: item.loaded };
  scheduleRender(item, queue);
}

function parseJSON(text) {
  try { return JSON.parse(text); } catch { return null; }
}

/** An upload's answer: Tests/Fixtures/json/upload.json, or error-400.json for a refusal.
 *  A form refused after its file part was stored answers with an error status, the `files`
 *  it stored and the `error`: the file is saved (sending it again would make a copy), and
 *  the sentence is announced.
 *  `savedAsURL`: the tus answer's stored file URL; multipart answers carry the name in JSON. */
function settle(item, status, text, savedAsURL = null) {
  const reply = parseJSON(text);
  const storedBefore = reply && Array.isArray(reply.files) && reply.files.length > 0;
  if ((status < 200 || status >= 300) && !storedBefore) {
    settleFailure(item, status, reply && reply.error);
    return;
  }
  const rejected = reply && Array.isArray(reply.errors) ? reply.errors[0] : null;
  if (rejected) {
    settleFailure(item, Number(rejected.status) || status, rejected.message);
    return;
  }
  finish(item);
  watchForStalls();
  item.state = 'done';
  item.loaded = item.total;
  const stored = reply && Array.isArray(reply.files) ? reply.files[0] : null;
  let savedAs = stored && typeof stored.name === 'string' ? stored.name : '';
  if (!savedAs && savedAsURL) savedAs = storedNameFromURL(savedAsURL, FILES_ROOT);
  item.savedAs = savedAs && savedAs.normalize('NFC') !== item.targetPath.normalize('NFC') ? savedAs : '';
  if (status >= 300 && typeof reply.error === 'string') item.note = reply.error;
  renderRow(item);
  // The file's own message first, then the queue's ("All 3 uploads finished").
  announce(t('queue.fileUploaded', { name: item.displayName }));
  if (item.note) announce(item.note);
  renderOverall(queue);
  hooks.uploaded(item.savedAs || item.targetPath);
  pump();
}

function settleFailure(item, status, serverSentence) {
  if (item.state !== 'uploading') return;
  finish(item);
  fail(item, status, serverSentence);
  pump();
}

function fail(item, status, serverSentence) {
  item.state = 'failed';
  item.failure = { ...describeFailure(status, serverSentence), retryable: isRetryable(status) };
  renderRow(item);
  announce(t('queue.fileFailed', { name: item.displayName, reason: item.failure.message.replace(/\.$/, '') }));
  renderOverall(queue);
}

function settleCancel(item) {
  if (item.state !== 'uploading') return;
  finish(item);
  item.state = 'cancelled';
  renderRow(item);
  announce(t('queue.fileCancelled', { name: item.displayName }));
  renderOverall(queue);
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
  } else if (item.state === 'uploading' && item.xhr) {
    item.xhr.abort();
  } else if (item.state === 'uploading') {
    // A resumable upload still looking up an earlier visit's URL.
    settleCancel(item);
  } else if (item.state === 'queued') {
    item.state = 'cancelled';
    renderRow(item);
    announce(t('queue.fileCancelled', { name: item.displayName }));
    renderOverall(queue);
  }
  hooks.busyChanged();
}

function retry(item) {
  if (item.state !== 'failed' && item.state !== 'cancelled') return;
  item.state = 'queued';
  item.loaded = 0;
  item.failure = null;
  renderRow(item);
  pump();
  renderOverall(queue);
}

function remove(item) {
  if (!item.finished) return;
  const index = queue.indexOf(item);
  queue.splice(index, 1);
  const hadFocus = item.row.element.contains(document.activeElement);
  item.row.element.remove();
  if (queue.length === 0) document.getElementById('queue').hidden = true;
  renderOverall(queue);
  if (hadFocus) focusAfterRemoving(queue, index);
}

/** Removes every finished row (uploaded, failed and cancelled alike). */
export function clearFinished() {
  for (const item of queue.filter((candidate) => candidate.finished)) {
    queue.splice(queue.indexOf(item), 1);
    item.row.element.remove();
  }
  if (queue.length === 0) document.getElementById('queue').hidden = true;
  renderOverall(queue);
  focusAfterRemoving(queue, 0);
}
