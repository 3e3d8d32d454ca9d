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

/**
 * A line drawn plain but for its word marks (an `air-wd` span per marked range): what a pass
 * changed shows at once, the token colours follow (colours.ts).
 */
export function renderMarked(parent: HTMLElement, line: string, marks: Array<[number, number]> | null): void {
  if (!marks || marks.length === 0 || INVISIBLE.test(line)) {
    appendVisible(parent, line);
    return;
  }
  let pos = 0;
  for (const [from, to] of marks) {
    if (from > pos) {
      parent.appendChild(document.createTextNode(line.slice(pos, from)));
    }
    const wd = document.createElement('span');
    wd.className = 'air-wd';
    wd.textContent = line.slice(from, to);
    parent.appendChild(wd);
    pos = to;
  }
  if (pos < line.length) {
    parent.appendChild(document.createTextNode(line.slice(pos)));
  }
}

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

/** Columns [from, to) of a line drawn with colours; the rest of the line is plain text. */
export type Columns = [from: number, to: number];

/** One column per character: printable ASCII (a tab or a wide character moves the columns). */
const NARROW = /^[\x20-\x7e]*$/;

/**
 * Append highlighted text to parent; marks are sorted [start, end) ranges drawn as word changes.
 * A marked range is one `air-wd` span around its tokens, however many tokens it covers.
 * With `cols`, only the tokens that reach into those columns (the ones in view) are coloured:
 * the text before and after them is one plain text node each, so the line reads the same and
 * a long line costs a few nodes, not one per token.
 */
export function renderHighlighted(parent: HTMLElement, line: string, marks?: Array<[number, number]>, cols?: Columns): void {
  if (INVISIBLE.test(line)) {
    // untrusted text with reordering or hidden characters: drawn plainly, each one labelled
    appendVisible(parent, line);
    return;
  }
  const tokens = tokenize(line);
  let first = 0;
  let last = tokens.length;
  let pos = 0;
  if (cols && (cols[0] > 0 || line.length > cols[1]) && NARROW.test(line)) {
    while (first < tokens.length && pos + tokens[first][1].length <= cols[0]) {
      pos += tokens[first++][1].length;
    }
    last = first;
    let end = pos;
    while (last < tokens.length && end < cols[1]) {
      end += tokens[last++][1].length;
    }
    if (pos > 0) {
      parent.appendChild(document.createTextNode(line.slice(0, pos)));
    }
    drawTokens(parent, tokens, first, last, pos, marks);
    if (end < line.length) {
      parent.appendChild(document.createTextNode(line.slice(end)));
    }
    return;
  }
  drawTokens(parent, tokens, first, last, pos, marks);
}

/** Tokens [first, last) starting at character `pos`, with the word marks that fall on them. */
function drawTokens(parent: HTMLElement, tokens: Token[], first: number, last: number, start: number, marks?: Array<[number, number]>): void {
  if (!marks || marks.length === 0) {
    for (let t = first; t < last; t++) {
      appendToken(parent, tokens[t][0], tokens[t][1]);
    }
    return;
  }
  let pos = start;
  let m = 0;
  let wd: HTMLElement | null = null;
  for (let t = first; t < last; t++) {
    const [cls, text] = tokens[t];
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
