// "New file" notices: when files arrive in the folder on screen while someone looks at it.
//
// They ride on the listing's polling (every 5 s while the page is visible; an unchanged
// folder costs a 304) rather than Server-Sent Events. A held `GET /events` per open page
// would count against max-connections-per-client (a family behind one NAT address shares
// it) and against the browser's six HTTP/1.1 connections per origin, which this page needs
// for its own parallel uploads; and the listing has to be fetched anyway to show the file.
// Five seconds late is soon enough to be told a file arrived.
//
// Files this page sent itself are not news to the person who sent them: they are announced
// as "uploaded" by the queue, and left out here.

import { t, numberFormat } from './i18n.js';

const MAX_NAMES = 3;
/** Names this page uploaded, until a listing has shown them. */
const ownUploads = new Set();

const $ = (id) => document.getElementById(id);

/** The queue finished uploading `path` (as the server saved it, relative to /files/). */
export function noteOwnUpload(path) {
  const name = path.split('/').filter(Boolean).pop();
  if (name) ownUploads.add(name.normalize('NFC'));
}

/** The listing of the same folder changed: `added` are the entries that were not in it. */
export function noticeArrivals(added) {
  const news = added.filter((entry) => entry.type !== 'directory' && !ownUploads.delete(entry.name.normalize('NFC')));
  if (news.length === 0) return;
  const names = news.slice(0, MAX_NAMES).map((entry) => entry.name).join(', ') + (news.length > MAX_NAMES ? ', …' : '');
  // A polite live region (role=status) that is always in the page: screen readers say it
  // once, without interrupting, and it stays visible until the next arrival.
  $('new-files').textContent = news.length === 1 ? t('arrivals.single', { name: news[0].name })
    : t('arrivals.several', { count: numberFormat.format(news.length), names });
}
