// Unfinished resumable uploads, remembered in IndexedDB so that a reload (or a browser
// restart) can list them ("big.bin 24 % - choose it again to resume") and a matching file,
// picked or dropped again, goes on from where it stopped. A record holds what identifies the
// file (name, size, last modified), where it goes on the server (its path there) and the tus
// upload URL; never the file's bytes. Without IndexedDB (private windows of some browsers)
// every call quietly does nothing: uploading works, only resuming after a reload is lost.

const DATABASE = 'filedrop';
const STORE = 'unfinished-uploads';

let opened = null;

function database() {
  if (!opened) {
    opened = new Promise((resolve, reject) => {
      if (!('indexedDB' in window)) { reject(new Error('no IndexedDB')); return; }
      const request = indexedDB.open(DATABASE, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: 'key' });
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  }
  return opened;
}

async function run(mode, action) {
  try {
    const db = await database();
    return await new Promise((resolve, reject) => {
      const request = action(db.transaction(STORE, mode).objectStore(STORE));
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  } catch {
    return undefined;
  }
}

/** The key of one file going to one place on the server. */
export function uploadKey(file, targetPath) {
  return JSON.stringify([file.name, file.size, file.lastModified, targetPath]);
}

/** `{ key, name, size, lastModified, targetPath, url, offset }` */
export function rememberUpload(record) {
  return run('readwrite', (store) => store.put({ ...record, updated: Date.now() }));
}

export function storedUpload(key) {
  return run('readonly', (store) => store.get(key));
}

export function forgetUpload(key) {
  return run('readwrite', (store) => store.delete(key));
}

export async function unfinishedUploads() {
  const all = await run('readonly', (store) => store.getAll());
  return Array.isArray(all) ? all : [];
}

/** The remembered upload of this very file (same name, size and modification time), wherever it was going. */
export async function unfinishedUploadOf(file) {
  const all = await unfinishedUploads();
  return all.find((record) => record.name === file.name && record.size === file.size
    && record.lastModified === file.lastModified) || null;
}
