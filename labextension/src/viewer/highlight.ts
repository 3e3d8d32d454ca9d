// MLIR highlighting from the shared grammar (ascend_ir_lab/static/mlir-grammar.json), the same
// rules the Pygments lexer uses. Tokens become spans with text nodes only.

import grammar from '../../../ascend_ir_lab/static/mlir-grammar.json';

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

/** Append highlighted text to parent; marks are [start, end) ranges drawn as word changes. */
export function renderHighlighted(parent: HTMLElement, line: string, marks?: Array<[number, number]>): void {
  let pos = 0;
  for (const [cls, text] of tokenize(line)) {
    const end = pos + text.length;
    if (!marks || marks.length === 0) {
      appendToken(parent, cls, text, false);
    } else {
      splitByMarks(parent, cls, text, pos, marks);
    }
    pos = end;
  }
}

function splitByMarks(parent: HTMLElement, cls: string, text: string, pos: number, marks: Array<[number, number]>): void {
  let cut = 0;
  for (const [s, e] of marks) {
    const a = Math.max(s - pos, cut);
    const b = Math.min(e - pos, text.length);
    if (b <= a) {
      continue;
    }
    if (a > cut) {
      appendToken(parent, cls, text.slice(cut, a), false);
    }
    appendToken(parent, cls, text.slice(a, b), true);
    cut = b;
  }
  if (cut < text.length) {
    appendToken(parent, cls, text.slice(cut), false);
  }
}

function appendToken(parent: HTMLElement, cls: string, text: string, marked: boolean): void {
  if (cls === 'w' && !marked) {
    parent.appendChild(document.createTextNode(text));
    return;
  }
  const span = document.createElement('span');
  span.className = marked ? `air-t-${cls} air-wd` : `air-t-${cls}`;
  span.textContent = text;
  parent.appendChild(span);
}
