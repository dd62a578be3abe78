// Numbers and dates as the page shows them. Sizes are binary (KiB, MiB), written exactly as
// the server's own pages write them (ByteCount.format), so a limit reads the same everywhere.

const BINARY_UNITS = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** "512 bytes", "1 MiB", "1.5 GiB": tenths truncated, a trailing ".0" left out. */
export function formatBytes(bytes) {
  if (!Number.isFinite(bytes) || bytes < 0) return '';
  const whole = Math.floor(bytes);
  if (whole < 1024) return whole === 1 ? '1 byte' : `${whole} bytes`;
  let divisor = 1024;
  let unit = 0;
  while (unit < BINARY_UNITS.length - 1 && whole / divisor >= 1024) {
    divisor *= 1024;
    unit += 1;
  }
  const tenths = Math.floor((whole * 10) / divisor);
  const text = tenths % 10 === 0 ? `${tenths / 10}` : `${Math.floor(tenths / 10)}.${tenths % 10}`;
  return `${text} ${BINARY_UNITS[unit]}`;
}

export function formatDuration(seconds) {
  if (!Number.isFinite(seconds) || seconds < 0) return '';
  const s = Math.ceil(seconds);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatTime(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : dateFormat.format(date);
}

export function plural(count, one, many) {
  return `${count} ${count === 1 ? one : many}`;
}

/** The decoded names of a /files/ URL path below the root ("/files/a%20b/c.txt" -> "a b/c.txt"). */
export function storedNameFromURL(url, rootPath) {
  const path = new URL(url, document.baseURI).pathname;
  if (!path.startsWith(rootPath)) return '';
  return path.slice(rootPath.length).split('/').map((segment) => {
    try { return decodeURIComponent(segment); } catch { return segment; }
  }).join('/');
}
