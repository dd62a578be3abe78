// The page's words in the language the server chose for it (from the filedrop-lang cookie or
// Accept-Language). The server wrote the page in that language, and put the strings this
// script writes into it as well (#page-strings, a JSON block from web/i18n-<code>.json): one
// language's words only, no second request, and they are there offline with the page.
//
// Plurals are `key.one` / `key.other` picked by Intl.PluralRules (Chinese has only "other");
// numbers are written by the language's Intl.NumberFormat; units stay binary (KiB, MiB).

export const language = document.documentElement.lang || 'en';

const pluralRules = new Intl.PluralRules(language);
// No grouping: sizes and counts read as the server's pages write them ("1023 bytes").
export const numberFormat = new Intl.NumberFormat(language, { useGrouping: false });

function pageStrings() {
  try {
    const parsed = JSON.parse(document.getElementById('page-strings').textContent);
    if (parsed && typeof parsed === 'object') return parsed;
  } catch {
    // A page without its strings (a web root without catalogues): the keys stand in.
  }
  return {};
}

const strings = pageStrings();

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
