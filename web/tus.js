// A small tus 1.0.0 client (https://tus.io/protocols/resumable-upload) for big files over
// flaky WiFi: the file goes up in chunks (one PATCH each, sized by PatchSize below: a first
// small one, then as much as about PATCH_SECONDS carry); a failed chunk is retried with
// growing pauses after asking the server (HEAD) how much it really has; and the upload URL is
// remembered in IndexedDB (resume-store.js), keyed by name, size, modification time and the
// path on the server, so a reload (or a browser restart) resumes where it stopped instead of
// starting over.

import { uploadKey, rememberUpload, forgetUpload, storedUpload } from './resume-store.js';

export const TUS_ENDPOINT = new URL('files/', document.baseURI).pathname;
/** The first PATCH: small, so that a connection that cannot carry a body fails early. */
const FIRST_CHUNK = 8 * 1024 * 1024;
/** What a PATCH should take at the rate the last one went. The daemon keeps every byte that
 *  arrived when a PATCH breaks off (protocol.md "PATCH"), so a long PATCH loses nothing on a
 *  flaky network; each PATCH's end costs a round trip and an fsync on the server, with the
 *  network idle meanwhile (8 MiB PATCHes ran at 0.57x a plain form upload on loopback). */
const PATCH_SECONDS = 8;
const VERSION = '1.0.0';
/** Pauses before retrying a failed chunk; the last one repeats until MAX_FAILURES. */
const BACKOFF_MS = [1000, 2000, 4000, 8000, 15000, 30000];
const MAX_FAILURES = 30;

/** A failure the server meant (a 4xx other than conflicts): retrying would not help. */
export class TusRefused extends Error {
  constructor(status, message) {
    super(message || `status ${status}`);
    this.status = status;
  }
}

class Aborted extends Error {}

function base64(text) {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}

function wait(ms, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(timer); reject(new Aborted()); }, { once: true });
  });
}

/** Uploads one file; `start()` resolves when the server has it all. */
export class TusUpload {
  /**
   * @param {File} file
   * `targetPath`: where the file goes below /files/ ("folder1/big.bin"). `onProgress`: bytes
   * sent in this session up to `loaded`; `onOffset`: what the server already had (a resume),
   * which is no sending speed.
   * @param {{targetPath?: string, onProgress?: (loaded: number) => void, onOffset?: (offset: number) => void,
   *          onResuming?: (resuming: boolean) => void}} options
   */
  constructor(file, { targetPath = file.name, onProgress = () => {}, onOffset = () => {}, onResuming = () => {} } = {}) {
    this.file = file;
    this.targetPath = targetPath;
    this.onProgress = onProgress;
    this.onOffset = onOffset;
    this.onResuming = onResuming;
    this.url = null;
    this.offset = 0;
    this.xhr = null;
    /** The stored file's URL when the server said it (not in a drop box). */
    this.savedAs = null;
    this.controller = new AbortController();
    this.key = uploadKey(file, targetPath);
    this.patchSize = new PatchSize();
  }

  async start() {
    const { signal } = this.controller;
    if (await this.resumeStored()) this.onResuming(true);
    else await this.create();
    let failures = 0;
    let offsetUnknown = false;
    while (this.offset < this.file.size) {
      try {
        if (offsetUnknown) await this.refreshOffset();
        offsetUnknown = false;
        await this.sendChunk();
        failures = 0;
        this.onResuming(false);
      } catch (error) {
        if (signal.aborted || error instanceof Aborted) throw new Aborted();
        if (error instanceof TusRefused && error.status >= 400 && error.status < 500 && error.status !== 409 && error.status !== 423) {
          if (error.status === 404 || error.status === 410) this.forget();
          throw error;
        }
        // The network or the server failed: wait, ask where the upload stands, go on from there.
        failures += 1;
        if (failures > MAX_FAILURES) throw new TusRefused(0, 'the connection kept failing');
        this.onResuming(true);
        await wait(BACKOFF_MS[Math.min(failures, BACKOFF_MS.length) - 1] * (0.75 + Math.random() / 2), signal);
        offsetUnknown = true;
      }
    }
    this.forget();
  }

  /** Stops, and tells the server to drop what it has (tus termination). */
  cancel() {
    this.controller.abort();
    if (this.xhr) this.xhr.abort();
    if (this.url) {
      fetch(this.url, { method: 'DELETE', headers: { 'Tus-Resumable': VERSION } }).catch(() => {});
    }
    this.forget();
  }

  forget() {
    forgetUpload(this.key);
  }

  remember() {
    const { name, size, lastModified } = this.file;
    rememberUpload({ key: this.key, name, size, lastModified, targetPath: this.targetPath, url: this.url, offset: this.offset });
  }

  /** A URL stored by an earlier visit still valid on the server: go on from its offset. */
  async resumeStored() {
    const stored = await storedUpload(this.key);
    if (!stored || typeof stored.url !== 'string') return false;
    this.url = stored.url;
    try {
      await this.refreshOffset();
      return true;
    } catch {
      this.url = null;
      this.forget();
      return false;
    }
  }

  async create() {
    const metadata = [`filename ${base64(this.file.name)}`];
    if (this.targetPath.includes('/')) metadata.push(`relativePath ${base64(this.targetPath)}`);
    const response = await fetch(TUS_ENDPOINT, {
      method: 'POST',
      headers: { 'Tus-Resumable': VERSION, 'Upload-Length': String(this.file.size), 'Upload-Metadata': metadata.join(',') },
      signal: this.controller.signal,
    });
    if (response.status !== 201 || !response.headers.get('Location')) {
      throw new TusRefused(response.status, await errorText(response));
    }
    this.url = new URL(response.headers.get('Location'), document.baseURI).href;
    this.offset = 0;
    this.remember();
  }

  /** HEAD: what the server really has. A vanished upload is final (TusRefused 404). */
  async refreshOffset() {
    const response = await fetch(this.url, {
      method: 'HEAD', headers: { 'Tus-Resumable': VERSION }, cache: 'no-store', signal: this.controller.signal,
    });
    const offset = response.headers.get('Upload-Offset');
    if (!response.ok || offset === null) throw new TusRefused(response.status, '');
    this.offset = Number(offset);
    this.onOffset(this.offset);
  }

  /** One PATCH of `patchSize.next` bytes (or the rest) from the current offset (XHR for
   *  upload progress). A 413 (a proxy's body limit) halves the size and tries again at once. */
  sendChunk() {
    const start = this.offset;
    const length = Math.min(this.file.size - start, this.patchSize.next);
    const chunk = this.file.slice(start, start + length);
    const began = performance.now();
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      this.xhr = xhr;
      xhr.open('PATCH', this.url);
      xhr.setRequestHeader('Tus-Resumable', VERSION);
      xhr.setRequestHeader('Upload-Offset', String(start));
      xhr.setRequestHeader('Content-Type', 'application/offset+octet-stream');
      xhr.upload.addEventListener('progress', (event) => this.onProgress(start + event.loaded));
      xhr.addEventListener('load', () => {
        this.xhr = null;
        const offset = xhr.getResponseHeader('Upload-Offset');
        if (xhr.status === 204 && offset !== null) {
          this.patchSize.went(Number(offset) - start, performance.now() - began);
          this.offset = Number(offset);
          this.savedAs = xhr.getResponseHeader('Filedrop-Saved-As') || this.savedAs;
          this.onProgress(this.offset);
          if (this.offset < this.file.size) this.remember();
          resolve();
        } else if (xhr.status === 413 && this.patchSize.shrink()) {
          resolve();
        } else if (xhr.status >= 500 || xhr.status === 0) {
          this.patchSize.shrink();
          reject(new Error(`status ${xhr.status}`));
        } else {
          reject(new TusRefused(xhr.status, xhr.responseText.replace(/^\d+ [^:]*: /, '').trim()));
        }
      });
      xhr.addEventListener('error', () => { this.xhr = null; this.patchSize.shrink(); reject(new Error('network error')); });
      xhr.addEventListener('timeout', () => { this.xhr = null; this.patchSize.shrink(); reject(new Error('timeout')); });
      xhr.addEventListener('abort', () => { this.xhr = null; reject(new Aborted()); });
      xhr.send(chunk);
    });
  }
}

/** How big the next PATCH is: FIRST_CHUNK, then what the last one's rate carries in
 *  PATCH_SECONDS (at least twice the last size), halved after a failure (never below
 *  FIRST_CHUNK). On loopback or a fast LAN a 1 GiB file goes up in two PATCHes. */
class PatchSize {
  constructor() {
    this.next = FIRST_CHUNK;
  }

  /** A PATCH of `bytes` took `ms`. */
  went(bytes, ms) {
    const rate = bytes / Math.max(ms, 1) * 1000;
    this.next = Math.max(this.next, 2 * bytes, Math.round(rate * PATCH_SECONDS));
  }

  /** After a failure; false when already at the smallest size. */
  shrink() {
    if (this.next <= FIRST_CHUNK) return false;
    this.next = Math.max(FIRST_CHUNK, Math.floor(this.next / 2));
    return true;
  }
}

async function errorText(response) {
  try {
    return (await response.text()).replace(/^\d+ [^:]*: /, '').trim();
  } catch {
    return '';
  }
}

export function isAborted(error) {
  return error instanceof Aborted;
}
