// filedrop page: sending files (queue.js, collect.js), the shared files (listing.js), the
// phone's way in (the QR code and the address next to it), and the page following the
// server's mode from /config.json: read-only hides sending, a drop box shows no files (and
// asks for none), private has a sign-out.
//
// Every string that comes from the server or from a file name reaches the page through
// textContent or DOM properties, never innerHTML; links use the server's `url` fields as given.
//
// The JSON this page reads (config.json, listings, upload reports, errors) is declared once, by
// the golden files in Tests/Fixtures/json; test_page_wire_format.py feeds them to this page.

import { config, loadConfig, listsFiles, takesUploads } from './config.js';
import { enqueue, clearFinished, isBusy, onQueueEvents } from './queue.js';
import { setUpPickers } from './collect.js';
import { startListing, refreshListingSoon, destinationFolder, onFolderChange } from './listing.js';
import { startFileOps } from './file-ops.js';
import { noteOwnUpload } from './arrivals.js';
import { showUnfinished, claimUnfinished } from './unfinished.js';
import { formatBytes } from './format.js';
import { t, tParts } from './i18n.js';

const $ = (id) => document.getElementById(id);

document.documentElement.classList.add('js');

function send(entries) {
  if (!takesUploads() || entries.length === 0) return;
  claimUnfinished(entries.map((entry) => entry.file));
  enqueue(entries, listsFiles() ? destinationFolder() : '');
}

/** "Files go into All files / holiday": the folder on screen is where files go. */
function showDestination(folder) {
  const names = folder.split('/').filter(Boolean);
  $('destination-folder').textContent = [t('files.root'), ...names].join(' / ');
}

// ---------------------------------------------------------------------------------------------
// Keeping a phone's screen on while it sends (a sleeping phone drops its WiFi uploads)

let wakeLock = null;
let askingForWakeLock = false;

async function updateWakeLock() {
  if (!('wakeLock' in navigator) || askingForWakeLock) return;
  if (isBusy() && !wakeLock && document.visibilityState === 'visible') {
    askingForWakeLock = true;
    try {
      const lock = await navigator.wakeLock.request('screen');
      wakeLock = lock;
      lock.addEventListener('release', () => { if (wakeLock === lock) wakeLock = null; });
    } catch {
      // Refused (battery saver, no user activation): uploads go on, the screen may sleep.
    } finally {
      askingForWakeLock = false;
    }
    // The queue may have finished while the browser was asked.
    if (!isBusy()) updateWakeLock();
  } else if (!isBusy() && wakeLock) {
    const lock = wakeLock;
    wakeLock = null;
    lock.release();
  }
}

// ---------------------------------------------------------------------------------------------
// The mode the server runs in

function followMode() {
  $('title').textContent = config.title;
  document.title = config.title;
  $('limit-note').textContent = config.maxUploadSize ? t('app.limit', { size: formatBytes(config.maxUploadSize) }) : '';
  if (!takesUploads()) {
    $('send').hidden = true;
    $('queue').hidden = true;
    $('tagline').textContent = t('app.readOnly');
  }
  if (!listsFiles()) {
    // A drop box: only its owner sees the files, so visitors get one sentence and no polling.
    for (const id of ['breadcrumb', 'listing-tools', 'file-list', 'zip-link', 'destination']) $(id).hidden = true;
    $('files-status').textContent = t('app.dropBox');
  }
  if (config.access === 'private') $('sign-out').hidden = false;
}

/** Basic auth has no sign-out: a browser keeps the password until it closes. A request with a
 *  wrong one, answered 401, makes Chromium and Firefox replace what they keep; Safari keeps
 *  it, so the page says to close the browser to be sure. */
function setUpSignOut() {
  $('sign-out').addEventListener('click', () => {
    const xhr = new XMLHttpRequest();
    xhr.open('GET', 'config.json', true, 'signed-out', 'signed-out');
    xhr.setRequestHeader('Accept', 'application/json');
    const done = () => {
      $('page-main').hidden = true;
      $('sign-out').hidden = true;
      $('signed-out').hidden = false;
      $('signed-out-heading').focus();
    };
    xhr.addEventListener('loadend', done);
    xhr.send();
  });
}

// ---------------------------------------------------------------------------------------------
// Open on a phone: the code and the same address as text

function showPhoneAddress() {
  const url = config.phoneURL || location.origin + '/';
  $('phone-url').textContent = url;
  $('phone-url').href = url;
  // The code stays where it always is; the warning says that no other device can open it.
  if (config.loopbackOnly) $('phone-warning').hidden = false;
  $('copy-url').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(url);
      $('copy-status').textContent = t('app.copied');
    } catch {
      // No clipboard outside a secure context: select the text for the person to copy.
      getSelection().selectAllChildren($('phone-url'));
      $('copy-status').textContent = t('app.selected');
    }
  });
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
    note.replaceChildren(...tParts('app.secureConnection', { fingerprint, link }));
    link.href = 'trust';
    link.textContent = t('app.howToTrust');
  } else {
    if (typeof https.url !== 'string' || !https.url.startsWith('https://')) return;
    note.replaceChildren(...tParts('app.notEncrypted', { link }));
    link.href = https.url;
    link.textContent = t('app.openOverHTTPS');
  }
  note.hidden = false;
}

// ---------------------------------------------------------------------------------------------
// Installing as an app (manifest.webmanifest, sw.js)

/** A service worker, hence installing and the share target, needs a secure context: HTTPS, or
 *  localhost on this computer. Over plain HTTP the page works as before and says so in the
 *  footer, with the way to HTTPS when the server has it. */
function setUpInstall() {
  if (window.isSecureContext && 'serviceWorker' in navigator) {
    // Not installable then, and the page works without it: nothing to tell anyone.
    navigator.serviceWorker.register('sw.js').catch(() => {});
    return;
  }
  const note = $('install-note');
  if (config.https) {
    const link = document.createElement('a');
    link.href = 'trust';
    link.textContent = t('app.installHowTo');
    note.replaceChildren(...tParts('app.installNeedsHTTPSLink', { link }));
  } else {
    note.textContent = t('app.installNeedsHTTPS');
  }
  note.hidden = false;
}

// ---------------------------------------------------------------------------------------------
// Start-up

onQueueEvents({
  uploaded: (path) => {
    noteOwnUpload(path);
    if (listsFiles()) refreshListingSoon();
  },
  busyChanged: updateWakeLock,
});
document.addEventListener('visibilitychange', updateWakeLock);
window.addEventListener('beforeunload', (event) => {
  if (isBusy()) event.preventDefault();
});
setUpPickers(send);
setUpSignOut();
$('clear-finished').addEventListener('click', clearFinished);
onFolderChange(showDestination);

// The access mode decides whether there is a listing to ask for, so the configuration comes first.
loadConfig().finally(() => {
  followMode();
  showPhoneAddress();
  showConnectionNote();
  setUpInstall();
  if (listsFiles()) {
    startFileOps();
    startListing();
  }
  if (takesUploads() && config.tus) showUnfinished();
  if (new URLSearchParams(location.search).has('shared')) sendShared();
});

/** A share handed over by the service worker (share.js): sent like dropped files, and the
 *  address loses its `?shared` so a reload does not look for the share again. */
async function sendShared() {
  history.replaceState(null, '', location.pathname);
  const { takeSharedFiles } = await import('./share.js');
  send((await takeSharedFiles()).map((file) => ({ file, relativePath: '' })));
}
