// Resumable uploads left unfinished by an earlier visit (a reload, a closed tab, a phone that
// slept): listed with how far they got, so the person knows to choose the file again. A
// matching file picked or dropped then resumes by itself (queue.js finds its record); Forget
// tells the server to drop what it has.

import { unfinishedUploads, forgetUpload } from './resume-store.js';
import { formatBytes } from './format.js';
import { t } from './i18n.js';
import { announce } from './announce.js';

const $ = (id) => document.getElementById(id);
const TUS_HEADERS = { 'Tus-Resumable': '1.0.0' };
const rows = new Map();

/** Asks the server how far each remembered upload got; ones it no longer has are forgotten. */
export async function showUnfinished() {
  for (const record of await unfinishedUploads()) {
    let offset = null;
    try {
      const response = await fetch(record.url, { method: 'HEAD', headers: TUS_HEADERS, cache: 'no-store' });
      if (response.status === 404 || response.status === 410) { forgetUpload(record.key); continue; }
      if (response.ok) offset = Number(response.headers.get('Upload-Offset'));
    } catch {
      // Offline now: list it with what was last known.
    }
    addRow(record, Number.isFinite(offset) ? offset : Number(record.offset) || 0);
  }
}

function addRow(record, offset) {
  const li = document.createElement('li');
  li.className = 'unfinished-item';
  const text = document.createElement('p');
  text.className = 'unfinished-text';
  const name = document.createElement('span');
  name.className = 'upload-name';
  name.textContent = record.targetPath || record.name;
  const percent = Math.floor(100 * offset / Math.max(record.size, 1));
  text.append(name, t('unfinished.progress', { percent, size: formatBytes(record.size), name: record.name }));

  const actions = document.createElement('span');
  actions.className = 'upload-actions';
  const choose = button(t('unfinished.choose'), 'primary', t('unfinished.chooseName', { name: record.name }),
    () => $('file-input').click());
  const forget = button(t('unfinished.forget'), 'ghost', t('unfinished.forgetName', { name: record.name }), () => {
    fetch(record.url, { method: 'DELETE', headers: TUS_HEADERS }).catch(() => {});
    forgetUpload(record.key);
    removeRow(record.key);
    announce(t('unfinished.forgotten', { name: record.name }));
  });
  actions.append(choose, forget);
  li.append(text, actions);
  rows.set(record.key, { li, record });
  $('unfinished-list').append(li);
  $('unfinished').hidden = false;
}

function button(label, kind, accessibleName, handler) {
  const element = document.createElement('button');
  element.type = 'button';
  element.className = `button small ${kind}`;
  element.textContent = label;
  element.setAttribute('aria-label', accessibleName);
  element.addEventListener('click', handler);
  return element;
}

function removeRow(key) {
  const row = rows.get(key);
  if (!row) return;
  const hadFocus = row.li.contains(document.activeElement);
  row.li.remove();
  rows.delete(key);
  if (rows.size === 0) $('unfinished').hidden = true;
  if (hadFocus) $(rows.size > 0 ? 'unfinished-heading' : 'dropzone').focus();
}

/** Files chosen again leave the list: the queue shows them from now on. */
export function claimUnfinished(files) {
  for (const [key, { record }] of rows) {
    if (files.some((file) => file.name === record.name && file.size === record.size && file.lastModified === record.lastModified)) {
      removeRow(key);
    }
  }
}
