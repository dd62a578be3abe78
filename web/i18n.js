// The page's words in the language the server chose for it (the `lang` of <html>, from the
// filedrop-lang cookie or Accept-Language): that language's catalogue only, i18n-<code>.json,
// which index.html preloads. The other strings of the page are already in it, written by the
// server. The top-level await holds back every module that imports this one until the
// catalogue is in, so their strings can be looked up anywhere, even at module level.
//
// Plurals are `key.one` / `key.other` picked by Intl.PluralRules (Chinese has only "other");
// numbers are written by the language's Intl.NumberFormat; units stay binary (KiB, MiB).

export const language = document.documentElement.lang || 'en';
const code = language.split('-')[0];

const pluralRules = new Intl.PluralRules(language);
// No grouping: sizes and counts read as the server's pages write them ("1023 bytes").
export const numberFormat = new Intl.NumberFormat(language, { useGrouping: false });

async function loadCatalogue() {
  try {
    const response = await fetch(`i18n-${code}.json`, { credentials: 'same-origin' });
    if (response.ok) return await response.json();
  } catch {
    // Offline and not cached: the keys stand in for the words; sending still works.
  }
  return {};
}

const strings = await loadCatalogue();

function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (mark, name) => (name in values ? String(values[name]) : mark));
}

/** The text of `key` with its {placeholders} filled from `values`. */
export function t(key, values = {}) {
  return fill(typeof strings[key] === 'string' ? strings[key] : key, values);
}

/** `key` counted: `key.one` or `key.other` by the language's rule; {count} is the number as
 *  the language writes it. */
export function tn(key, count, values = {}) {
  const specific = `${key}.${pluralRules.select(count)}`;
  const chosen = typeof strings[specific] === 'string' ? specific : `${key}.other`;
  return t(chosen, { ...values, count: numberFormat.format(count) });
}

/** The page's text with elements in place of its {placeholders} (a link, a fingerprint). */
export function tParts(key, nodes) {
  const template = typeof strings[key] === 'string' ? strings[key] : key;
  return template.split(/(\{\w+\})/).filter(Boolean).map((part) => {
    const name = /^\{(\w+)\}$/.exec(part);
    return name && name[1] in nodes ? nodes[name[1]] : part;
  });
}
