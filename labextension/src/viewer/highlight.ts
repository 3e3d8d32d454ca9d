// MLIR highlighting from the shared grammar (ascend_ir_lab/static/mlir-grammar.json), the same
// rules the Pygments lexer uses. Tokens become spans with text nodes only.

import grammar from '../../../ascend_ir_lab/static/mlir-grammar.json';
import { appendVisible, INVISIBLE } from './text';

export interface GrammarRule {
  name: string;
  token: string;
  class: string;
  regex: string;
}

export const RULES: GrammarRule[] = (grammar as { rules: GrammarRule[] }).rules;

const COMBINED = new RegExp(RULES.map(r => `(${r.regex})`).join('|'), 'y');

export type Token = [cls: string, text: string];

const cache = new Map<string, Token[]>();

/** Split one line into [class, text] tokens; concatenated texts equal the line. */
export function tokenize(line: string): Token[] {
  const hit = cache.get(line);
  if (hit) {
    return hit;
  }
  const out: Token[] = [];
  COMBINED.lastIndex = 0;
  while (COMBINED.lastIndex < line.length) {
    const m = COMBINED.exec(line);
    if (!m) {
      break;
    }
    let g = 1;
    while (m[g] === undefined) {
      g++;
    }
    out.push([RULES[g - 1].class, m[0]]);
  }
  if (cache.size > 60000) {
    cache.clear();
  }
  cache.set(line, out);
  return out;
}

/**
 * Append highlighted text to parent; marks are sorted [start, end) ranges drawn as word changes.
 * A marked range is one `air-wd` span around its tokens, however many tokens it covers.
 */
export function renderHighlighted(parent: HTMLElement, line: string, marks?: Array<[number, number]>): void {
  if (INVISIBLE.test(line)) {
    // untrusted text with reordering or hidden characters: drawn plainly, each one labelled
    appendVisible(parent, line);
    return;
  }
  if (!marks || marks.length === 0) {
    for (const [cls, text] of tokenize(line)) {
      appendToken(parent, cls, text);
    }
    return;
  }
  let pos = 0;
  let m = 0;
  let wd: HTMLElement | null = null;
  for (const [cls, text] of tokenize(line)) {
    let cut = 0;
    while (cut < text.length) {
      while (m < marks.length && marks[m][1] <= pos + cut) {
        m++;
      }
      const inMark = m < marks.length && marks[m][0] <= pos + cut;
      const stop = m < marks.length ? marks[m][inMark ? 1 : 0] - pos : text.length;
      const end = Math.min(text.length, stop);
      if (inMark) {
        if (wd === null) {
          wd = document.createElement('span');
          wd.className = 'air-wd';
          parent.appendChild(wd);
        }
        appendToken(wd, cls, text.slice(cut, end));
      } else {
        wd = null;
        appendToken(parent, cls, text.slice(cut, end));
      }
      cut = end;
    }
    pos += text.length;
  }
}

/**
 * Classes drawn in the code's own colour (set on the pane's code cells: that of punctuation):
 * they stay text, merged with their neighbours into one text node, so a line costs a dozen
 * nodes rather than one per token. Whitespace has no colour to keep.
 */
const PLAIN = new Set(['w', 'p', 'o', 'x']);

function appendToken(parent: HTMLElement, cls: string, text: string): void {
  if (PLAIN.has(cls)) {
    const last = parent.lastChild;
    if (last !== null && last.nodeType === Node.TEXT_NODE) {
      (last as Text).appendData(text);
    } else {
      parent.appendChild(document.createTextNode(text));
    }
    return;
  }
  const span = document.createElement('span');
  span.className = `air-t-${cls}`;
  span.textContent = text;
  parent.appendChild(span);
}
