// Files shared to the installed app ("Share -> filedrop" in a phone's gallery). The service
// worker (sw.js) takes the share target's POST, keeps the files in IndexedDB and opens the
// page at `/?shared`; here the page takes them out again and sends them through its own queue,
// so a share shows the same progress, result and retry as any other upload. Without the worker
// (not installed yet, or an update in between) the POST reaches the server's form handler, and
// its result page says what was saved.

// The same names as in sw.js, which is a classic script and cannot import this module.
const DATABASE = 'filedrop-share';
const STORE = 'shared';
const KEY = 'pending';

/** The files of the last share, removed from IndexedDB as they are taken; [] when none. */
export function takeSharedFiles() {
  return new Promise((resolve) => {
    if (!('indexedDB' in window)) { resolve([]); return; }
    const opening = indexedDB.open(DATABASE, 1);
    opening.onupgradeneeded = () => opening.result.createObjectStore(STORE);
    opening.onerror = () => resolve([]);
    opening.onsuccess = () => {
      const transaction = opening.result.transaction(STORE, 'readwrite');
      const store = transaction.objectStore(STORE);
      let files = [];
      store.get(KEY).onsuccess = (event) => { files = event.target.result || []; };
      store.delete(KEY);
      transaction.oncomplete = () => resolve(files);
      transaction.onerror = () => resolve([]);
    };
  });
}
