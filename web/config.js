// What the server says about itself (/config.json): its title and limits, the access mode the
// page follows, and the addresses a phone can open. Defaults hold when the file is missing.

const CONFIG_URL = 'config.json';

/** `access`: open, drop, private or read-only. `phoneURL`: what the QR code says (the LAN
 *  address when the page was opened on loopback). `https`: whether this page came over HTTPS,
 *  its HTTPS address and its CA. */
export const config = {
  title: 'filedrop', maxUploadSize: null, tus: false, access: 'open', readOnly: false, allowDelete: false, allowRename: false,
  phoneURL: null, lanURLs: [], loopbackOnly: false, https: null,
};

/** Tests/Fixtures/json/config.json and config-https.json declare what the server sends. */
export async function loadConfig() {
  try {
    const response = await fetch(CONFIG_URL, { headers: { Accept: 'application/json' }, cache: 'no-store' });
    if (!response.ok) return false;
    const reply = await response.json();
    if (typeof reply.title === 'string' && reply.title.trim()) config.title = reply.title.trim();
    if (Number.isFinite(reply.maxUploadSize) && reply.maxUploadSize > 0) config.maxUploadSize = reply.maxUploadSize;
    config.tus = reply.tus === true;
    if (typeof reply.access === 'string') config.access = reply.access;
    config.readOnly = reply.readOnly === true || config.access === 'read-only';
    config.allowDelete = reply.allowDelete === true;
    config.allowRename = reply.allowRename === true;
    if (typeof reply.phoneURL === 'string' && /^https?:\/\//.test(reply.phoneURL)) config.phoneURL = reply.phoneURL;
    if (Array.isArray(reply.lanURLs)) config.lanURLs = reply.lanURLs.filter((url) => typeof url === 'string');
    config.loopbackOnly = reply.loopbackOnly === true;
    if (reply.https && typeof reply.https === 'object') config.https = reply.https;
    return true;
  } catch {
    return false;
  }
}

/** A drop box lists its files only for the owner: visitors see no names at all. */
export function listsFiles() {
  return config.access !== 'drop';
}

/** Uploading is switched off on a read-only server. */
export function takesUploads() {
  return !config.readOnly;
}
