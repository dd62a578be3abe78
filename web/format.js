// Numbers and dates as the page shows them, in the page's language (i18n.js). Sizes are binary
// (KiB, MiB), cut to tenths exactly as the server's own pages write them (ByteCount.format), so a
// limit reads the same everywhere; the number itself is the language's ("1,5 MiB" in German).

import { language, tn, t } from './i18n.js';

const BINARY_UNITS = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

const tenthsFormat = new Intl.NumberFormat(language, { maximumFractionDigits: 1, useGrouping: false });

/** "512 bytes", "1 MiB", "1.5 GiB": tenths truncated, a trailing ".0" left out. */
export function formatBytes(bytes) {
  if (!Number.isFinite(bytes) || bytes < 0) return '';
  const whole = Math.floor(bytes);
  if (whole < 1024) return tn('size.bytes', whole);
  let divisor = 1024;
  let unit = 0;
  while (unit < BINARY_UNITS.length - 1 && whole / divisor >= 1024) {
    divisor *= 1024;
    unit += 1;
  }
  const tenths = Math.floor((whole * 10) / divisor);
  return `${tenthsFormat.format(tenths / 10)} ${BINARY_UNITS[unit]}`;
}

export function formatDuration(seconds) {
  if (!Number.isFinite(seconds) || seconds < 0) return '';
  const s = Math.ceil(seconds);
  if (s < 60) return t('duration.seconds', { s });
  const m = Math.floor(s / 60);
  if (m < 60) return t('duration.minutes', { m, s: s % 60 });
  return t('duration.hours', { h: Math.floor(m / 60), m: m % 60 });
}

const dateFormat = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' });

export function formatTime(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : dateFormat.format(date);
}

/** The decoded names of a /files/ URL path below the root ("/files/a%20b/c.txt" -> "a b/c.txt"). */
export function storedNameFromURL(url, rootPath) {
  const path = new URL(url, document.baseURI).pathname;
  if (!path.startsWith(rootPath)) return '';
  return path.slice(rootPath.length).split('/').map((segment) => {
    try { return decodeURIComponent(segment); } catch { return segment; }
  }).join('/');
}
