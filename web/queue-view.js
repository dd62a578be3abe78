// The upload queue on screen: one row per file (name, state, progress, what happened) and the
// overall line. Texts go in through textContent only.

import { formatBytes, formatDuration } from './format.js';
import { announce } from './announce.js';
import { t, tn } from './i18n.js';

const STATE_LABELS = {
  queued: t('queue.waiting'), uploading: t('queue.uploading'), done: t('queue.done'), failed: t('queue.failed'),
  cancelled: t('queue.cancelled'),
};

/** Builds the DOM of one upload row; texts are filled in by renderRow. */
export function createRow(item, handlers) {
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
  bar.setAttribute('aria-label', t('queue.progressOf', { name: item.displayName }));

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
    button.setAttribute('aria-label', t('queue.buttonName', { action: label, name: item.displayName }));
    button.addEventListener('click', () => handler(item));
    return button;
  };
  const buttons = {
    cancel: makeButton(t('queue.cancel'), handlers.cancel, 'secondary'),
    retry: makeButton(t('queue.retry'), handlers.retry, 'primary'),
    remove: makeButton(t('queue.remove'), handlers.remove, 'ghost'),
  };
  element.append(head, bar, foot, error);
  return { element, state, bar, meta, actions, error, message, detail, buttons };
}

export function renderRow(item) {
  const row = item.row;
  const now = performance.now();
  row.element.dataset.state = item.state;
  row.state.textContent = item.state === 'uploading'
    ? `${Math.floor(100 * item.loaded / Math.max(item.total, 1))} %`
    : STATE_LABELS[item.state];
  row.bar.value = item.state === 'done' ? row.bar.max : item.loaded;

  const parts = [];
  const speed = item.currentSpeed(now);
  if (item.state === 'uploading' && item.resuming) parts.push(t('queue.resuming'));
  else if (item.state === 'uploading' && item.loaded > 0 && speed === 0) parts.push(t('queue.waitingForNetwork'));
  if (item.state === 'uploading') {
    parts.push(t('queue.sentOf', { sent: formatBytes(item.loaded), total: formatBytes(item.total) }));
    if (speed > 0) {
      parts.push(t('queue.speed', { size: formatBytes(speed) }));
      parts.push(t('queue.left', { time: formatDuration((item.total - item.loaded) / speed) }));
    }
  } else if (item.state === 'done' && item.savedAs) {
    parts.push(t('queue.savedAs', { size: formatBytes(item.total), name: item.savedAs }));
  } else {
    parts.push(formatBytes(item.total));
  }
  row.meta.textContent = parts.join(' · ');

  // A stored file whose form was refused after it shows the server's sentence as well.
  const notice = item.failure ? item.failure.message : item.note;
  row.message.textContent = notice || '';
  row.detail.textContent = item.failure ? item.failure.detail : '';
  row.error.hidden = !notice;

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

export function renderOverall(queue) {
  const now = performance.now();
  // Files count every upload but cancelled ones; bytes count only what is sent or being sent.
  const counted = queue.filter((item) => item.state !== 'cancelled');
  const sending = counted.filter((item) => item.state !== 'failed');
  const total = sending.reduce((sum, item) => sum + item.total, 0);
  const loaded = sending.reduce((sum, item) => sum + (item.state === 'done' ? item.total : item.loaded), 0);
  const done = counted.filter((item) => item.state === 'done').length;
  const failed = counted.length - sending.length;
  const active = queue.filter((item) => item.active);
  const speed = active.reduce((sum, item) => sum + item.currentSpeed(now), 0);

  const bar = document.getElementById('overall-progress');
  const allSettled = active.length === 0;
  bar.max = Math.max(total, 1);
  bar.value = allSettled && sending.length > 0 ? bar.max : loaded;

  const parts = [tn('queue.uploadedOf', counted.length, { done })];
  if (failed > 0) parts.push(t('queue.failedCount', { count: failed }));
  // Nothing being sent (all failed or cancelled): no "0 bytes of 0 bytes".
  if (sending.length > 0) parts.push(t('queue.sentOf', { sent: formatBytes(loaded), total: formatBytes(total) }));
  if (!allSettled && speed > 0) {
    const remaining = active.reduce((sum, item) => sum + item.total - item.loaded, 0);
    parts.push(t('queue.speed', { size: formatBytes(speed) }), t('queue.left', { time: formatDuration(remaining / speed) }));
  }
  document.getElementById('overall-text').textContent = parts.join(' · ');
  document.getElementById('clear-finished').hidden = !queue.some((item) => item.finished);

  if (queueWasBusy && allSettled && counted.length > 1) {
    announce(failed > 0 ? t('queue.finishedWithFailures', { done, failed }) : t('queue.allFinished', { count: done }));
  }
  queueWasBusy = !allSettled;
}

const dirtyRows = new Set();
let renderFrame = 0;

export function scheduleRender(item, queue) {
  dirtyRows.add(item);
  if (renderFrame) return;
  renderFrame = requestAnimationFrame(() => {
    renderFrame = 0;
    for (const dirty of dirtyRows) renderRow(dirty);
    dirtyRows.clear();
    renderOverall(queue);
  });
}

/** After rows were removed at `index`: the row now there (or the one before), else the
 *  queue's heading, else (no queue left) the drop zone, so focus never falls to the body. */
export function focusAfterRemoving(queue, index) {
  const next = queue[index] || queue[index - 1] || null;
  const button = next ? next.row.actions.querySelector('button') : null;
  if (button) button.focus();
  else if (queue.length > 0) document.getElementById('queue-heading').focus();
  else document.getElementById('dropzone').focus();
}
