// Collecting what to send: the pickers, drag and drop (folders keep their tree), pasted files
// and images, and text (pasted or typed), which is sent as a .txt file whose name can be changed.

import { announce } from './announce.js';
import { t } from './i18n.js';

const $ = (id) => document.getElementById(id);

/** A phone or tablet: nothing can be dropped, so the page does not offer it. */
export const isTouchOnly = window.matchMedia('(hover: none) and (pointer: coarse)').matches;

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
      announce(t('collect.unreadable', { name: root.name }));
    }
  }
  return out;
}

/** "2026-12-02 14.05.33": a name part that sorts by time and is valid everywhere. */
function timestamp(date = new Date()) {
  const two = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} `
    + `${two(date.getHours())}.${two(date.getMinutes())}.${two(date.getSeconds())}`;
}

/** A pasted screenshot arrives as "image.png": it gets a name of its own. */
function namedPaste(file) {
  if (!/^image\.\w+$/.test(file.name)) return file;
  const extension = file.name.slice(file.name.lastIndexOf('.'));
  return new File([file], `${t('collect.pastedImage', { time: timestamp() })}${extension}`, { type: file.type, lastModified: file.lastModified });
}

function openTextNote(text) {
  $('text-note').open = true;
  if (text) $('text-body').value = text;
  if (!$('text-name').value) $('text-name').value = `${t('collect.note', { time: timestamp() })}.txt`;
  $('text-body').focus();
}

function setUpTextNote(send) {
  $('text-note').addEventListener('toggle', () => {
    if ($('text-note').open && !$('text-name').value) $('text-name').value = `${t('collect.note', { time: timestamp() })}.txt`;
  });
  // A button, not a submit button: the no-script form's tests (and people) find one submit.
  const submit = () => {
    if (!$('text-form').reportValidity()) return;
    const text = $('text-body').value;
    let name = $('text-name').value.trim() || `${t('collect.note', { time: timestamp() })}.txt`;
    if (!/\.[^./]+$/.test(name)) name += '.txt';
    send([{ file: new File([text], name, { type: 'text/plain' }), relativePath: '' }]);
    $('text-body').value = '';
    $('text-name').value = '';
    $('text-note').open = false;
    $('text-summary').focus();
  };
  $('send-text').addEventListener('click', submit);
  $('text-form').addEventListener('submit', (event) => { event.preventDefault(); submit(); });
}

/** `send(entries)` takes `{ file, relativePath }` lists. */
export function setUpPickers(send) {
  const fileInput = $('file-input');
  const folderInput = $('folder-input');
  const dropzone = $('dropzone');

  const takeFrom = (input) => {
    send(entriesFromFileList(input.files));
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
  if (isTouchOnly) {
    // The visible words are the drop zone's accessible name (WCAG 2.5.3): change them, not a label.
    $('dropzone-title').textContent = t('collect.touchTitle');
    $('dropzone-action').hidden = true;
    $('dropzone-hint').textContent = t('collect.touchHint');
  }

  if ('webkitdirectory' in folderInput && !isTouchOnly) {
    $('folder-button').addEventListener('click', () => folderInput.click());
  } else {
    $('folder-button').hidden = true;
  }

  // Dragging over any part of the page counts; the counter copes with nested dragenter/leave.
  let depth = 0;
  const carriesFiles = (event) => [...(event.dataTransfer?.types || [])].includes('Files');
  const endDrag = () => { depth = 0; dropzone.classList.remove('dragging'); };
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
  document.addEventListener('dragend', endDrag);
  document.addEventListener('drop', async (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    endDrag();
    send(await entriesFromDrop(event.dataTransfer));
  });

  document.addEventListener('paste', (event) => {
    const data = event.clipboardData;
    if (!data) return;
    const files = [...data.files];
    if (files.length > 0) {
      event.preventDefault();
      send(files.map((file) => ({ file: namedPaste(file), relativePath: '' })));
      return;
    }
    // Text pasted into a field stays there; pasted anywhere else it becomes a note to send.
    const text = data.getData('text/plain');
    const target = event.target;
    if (!text || (target instanceof Element && target.closest('input, textarea, [contenteditable]'))) return;
    event.preventDefault();
    openTextNote(text);
  });
  setUpTextNote(send);
}
