// The file operations on the listing, as far as the server allows them (config.json): a
// checkbox per row with "Download selected as ZIP" (GET <folder>/?zip&select=<name>...),
// Rename (WebDAV MOVE with a Destination), Delete (DELETE, after a confirm step in the row)
// and New folder (MKCOL). Each is the plain request curl makes (README "File operations");
// the server checks access and the Origin and words every refusal, which is shown as sent.

import { config, takesUploads } from './config.js';
import { currentFolder, decorateEntries, holdRendering, onFolderChange, onListingRendered, refreshListing } from './listing.js';
import { announce } from './announce.js';
import { t } from './i18n.js';

const $ = (id) => document.getElementById(id);
const canDelete = () => config.allowDelete && !config.readOnly;
const canRename = () => config.allowRename && !config.readOnly;
/** Names checked in the folder on screen. */
const selected = new Set();

function button(label, kind, onClick) {
  const element = document.createElement('button');
  element.type = 'button';
  element.className = `button small ${kind}`;
  element.textContent = label;
  if (onClick) element.addEventListener('click', onClick);
  return element;
}

function alertLine() {
  const line = document.createElement('p');
  line.className = 'op-error';
  line.setAttribute('role', 'alert');
  return line;
}

/** The request, and the server's sentence when it refused (null when it went through). */
async function send(url, method, headers = {}) {
  try {
    const response = await fetch(url, { method, headers: { Accept: 'application/json', ...headers }, cache: 'no-store' });
    if (response.ok) return null;
    let reply = null;
    try { reply = await response.json(); } catch { reply = null; }
    return reply && typeof reply.error === 'string' ? reply.error : t('ops.failed', { status: response.status });
  } catch {
    return t('ops.offline');
  }
}

function row(name) {
  return [...$('file-list').children].find((li) => li.dataset.name === name) || null;
}

/** After the list changed: the row named `name` (its `selector` control), else the heading. */
async function refreshAndFocus(name, selector = '.entry-name') {
  holdRendering(false);
  await refreshListing();
  const target = (name !== null && row(name)?.querySelector(selector)) || $('files-heading');
  target.focus();
}

function decorate(li, entry) {
  li.dataset.name = entry.name;
  const box = document.createElement('input');
  box.type = 'checkbox';
  box.className = 'entry-select';
  box.checked = selected.has(entry.name);
  box.setAttribute('aria-label', t('ops.select', { name: entry.name }));
  box.addEventListener('change', () => {
    if (box.checked) selected.add(entry.name); else selected.delete(entry.name);
    updateZipSelected();
  });
  li.prepend(box);
  if (!canRename() && !canDelete()) return;
  const actions = document.createElement('span');
  actions.className = 'entry-actions';
  if (canRename()) {
    const rename = button(t('ops.rename'), 'ghost', () => startRename(li, entry));
    rename.classList.add('op-rename');
    rename.setAttribute('aria-label', t('ops.renameNamed', { name: entry.name }));
    actions.append(rename);
  }
  if (canDelete()) {
    const remove = button(t('ops.delete'), 'ghost', () => confirmDelete(li, entry, actions));
    remove.classList.add('op-delete');
    remove.setAttribute('aria-label', t('ops.deleteNamed', { name: entry.name }));
    actions.append(remove);
  }
  li.append(actions);
}

function startRename(li, entry) {
  holdRendering(true);
  const kept = [...li.children];
  const form = document.createElement('form');
  form.className = 'entry-form';
  const input = document.createElement('input');
  input.type = 'text';
  input.value = entry.name;
  input.autocomplete = 'off';
  input.spellcheck = false;
  input.setAttribute('aria-label', t('ops.newName', { name: entry.name }));
  const error = alertLine();
  const cancel = () => {
    li.replaceChildren(...kept);
    holdRendering(false);
    (row(entry.name)?.querySelector('.op-rename') || $('files-heading')).focus();
  };
  form.append(input, button(t('ops.save'), 'primary'), button(t('ops.cancel'), 'ghost', cancel), error);
  form.querySelector('.primary').type = 'submit';
  form.addEventListener('keydown', (event) => { if (event.key === 'Escape') { event.preventDefault(); cancel(); } });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const name = input.value.trim();
    if (!name || name === entry.name) { cancel(); return; }
    const folder = entry.type === 'directory' ? '/' : '';
    const refusal = await send(entry.url, 'MOVE', { Destination: currentFolder() + encodeURIComponent(name) + folder });
    if (refusal) {
      error.textContent = refusal;
      input.focus();
      return;
    }
    selected.delete(entry.name);
    announce(t('ops.renamed', { from: entry.name, to: name }));
    await refreshAndFocus(name);
  });
  li.replaceChildren(kept.find((child) => child.classList.contains('entry-icon') || child.tagName === 'IMG') || '', form);
  input.focus();
  // The name without its extension is selected, so typing replaces just that.
  const stem = entry.type === 'directory' ? entry.name : entry.name.replace(/\.[^.]+$/, '') || entry.name;
  input.setSelectionRange(0, stem.length);
}

/** A confirm step in the row itself (window.confirm would block the page and skip styling). */
function confirmDelete(li, entry, actions) {
  holdRendering(true);
  const kept = [...actions.children];
  const question = document.createElement('span');
  question.className = 'op-question';
  question.textContent = entry.type === 'directory' ? t('ops.confirmFolder', { name: entry.name }) : t('ops.confirmFile', { name: entry.name });
  const error = alertLine();
  const cancel = () => {
    actions.replaceChildren(...kept);
    actions.classList.remove('entry-confirm');
    actions.removeAttribute('role');
    holdRendering(false);
    (row(entry.name)?.querySelector('.op-delete') || $('files-heading')).focus();
  };
  const no = button(t('ops.cancel'), 'ghost', cancel);
  const yes = button(t('ops.confirm'), 'danger', async () => {
    const refusal = await send(entry.url, 'DELETE');
    if (refusal) {
      error.textContent = refusal;
      no.focus();
      return;
    }
    const list = [...$('file-list').children];
    const index = list.indexOf(li);
    const neighbour = list[index + 1] || list[index - 1];
    selected.delete(entry.name);
    announce(t('ops.deleted', { name: entry.name }));
    await refreshAndFocus(neighbour ? neighbour.dataset.name : null);
  });
  actions.classList.add('entry-confirm');
  actions.setAttribute('role', 'group');
  actions.setAttribute('aria-label', question.textContent);
  actions.replaceChildren(question, no, yes, error);
  actions.addEventListener('keydown', (event) => { if (event.key === 'Escape' && actions.contains(no)) cancel(); });
  no.focus();
}

function updateZipSelected() {
  const link = $('zip-selected');
  link.hidden = selected.size === 0;
  if (selected.size === 0) return;
  const query = [...selected].sort().map((name) => `select=${encodeURIComponent(name)}`).join('&');
  link.href = `${currentFolder()}?zip&${query}`;
  link.textContent = t('ops.zipSelected', { count: selected.size });
}

function setUpNewFolder() {
  const open = button(t('ops.newFolder'), 'ghost');
  open.id = 'new-folder';
  $('zip-selected').after(open);
  const form = document.createElement('form');
  form.id = 'new-folder-form';
  form.className = 'entry-form';
  form.hidden = true;
  const label = document.createElement('label');
  const input = document.createElement('input');
  input.type = 'text';
  input.autocomplete = 'off';
  input.spellcheck = false;
  label.append(t('ops.folderName'), ' ', input);
  const error = alertLine();
  const close = () => {
    form.hidden = true;
    error.textContent = '';
    open.focus();
  };
  const create = button(t('ops.create'), 'primary');
  create.type = 'submit';
  form.append(label, create, button(t('ops.cancel'), 'ghost', close), error);
  $('breadcrumb').after(form);
  open.addEventListener('click', () => {
    form.hidden = false;
    input.value = '';
    input.focus();
  });
  form.addEventListener('keydown', (event) => { if (event.key === 'Escape') { event.preventDefault(); close(); } });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const name = input.value.trim();
    if (!name) { input.focus(); return; }
    const refusal = await send(`${currentFolder()}${encodeURIComponent(name)}/`, 'MKCOL');
    if (refusal) {
      error.textContent = refusal;
      input.focus();
      return;
    }
    form.hidden = true;
    error.textContent = '';
    announce(t('ops.created', { name }));
    await refreshAndFocus(name);
  });
}

/** Called once the listing is on (never in drop mode, which shows no names). */
export function startFileOps() {
  const zip = document.createElement('a');
  zip.id = 'zip-selected';
  zip.className = 'button ghost';
  zip.download = '';
  zip.hidden = true;
  $('zip-link').after(zip);
  $('file-list').classList.add('with-ops');
  decorateEntries(decorate);
  onListingRendered((entries) => {
    const names = new Set(entries.map((entry) => entry.name));
    for (const name of selected) if (!names.has(name)) selected.delete(name);
    updateZipSelected();
  });
  onFolderChange(() => {
    // A rename or a confirm step left open in the folder left behind must not hold the new one.
    holdRendering(false);
    selected.clear();
    updateZipSelected();
  });
  if (takesUploads()) setUpNewFolder();
}
