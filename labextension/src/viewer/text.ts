// Untrusted text made visible: bidirectional overrides and isolates (U+202A–U+202E,
// U+2066–U+2069), zero-width and direction marks, the BOM and C0/C1 controls would reorder or
// hide what a payload shows. The viewer draws each as a visible `<U+202E>` (as the Python side's
// safe_text.visible does), always as text.

/** Characters that reorder or hide text; tab is kept (IR and source indent with it). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
// biome-ignore lint/suspicious/noMisleadingCharacterClass: single code points, each drawn on its own
export const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\ufff9-\ufffb]/;
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'g');

/** `<U+202E>` for one such character. */
export function codeLabel(ch: string): string {
  return `<U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** The text with every invisible or reordering character written out as `<U+XXXX>`. */
export function shownText(s: string): string {
  return INVISIBLE.test(s) ? s.replace(INVISIBLE_ALL, codeLabel) : s;
}

/**
 * Append `text` to parent, each invisible character as a marked span (`air-ctl`) holding its
 * label, the rest as text nodes.
 */
export function appendVisible(parent: HTMLElement, text: string): void {
  let last = 0;
  for (const m of text.matchAll(INVISIBLE_ALL)) {
    const at = m.index ?? 0;
    if (at > last) {
      parent.appendChild(document.createTextNode(text.slice(last, at)));
    }
    const span = document.createElement('span');
    span.className = 'air-ctl';
    span.title = 'an invisible or text-reordering character, shown by its code';
    span.textContent = codeLabel(m[0]);
    parent.appendChild(span);
    last = at + m[0].length;
  }
  if (last < text.length) {
    parent.appendChild(document.createTextNode(text.slice(last)));
  }
}
