// The canonical form of MLIR text two identical compiles agree on, as
// ascend_ir_lab.analysis.canonical's canonical_lines writes it, every line kept in place (the same rules, the same hash; pinned by the
// golden corpus tests/data/golden/canonical.json): #map/#set uses inlined, values named by
// what defines them, function arguments by type and rank (an inserted argument leaves the
// others' names alone), scf.for iter_args sorted, attribute dictionaries sorted, then the
// names renumbered %v0, %v1... in order of first appearance.

import { stripLoc } from './normalize';

const ALIAS_DEF = /^(#(?:map|set)\d*)\s*=\s*(.*)$/;
const ALIAS_USE = /#(?:map|set)\d*(?![\w$.])/g;
const LOC_ALIAS = /^#loc\d*\s*=\s*loc\(/;
const VALUE = /%[\w$.-]+(?:#\d+)?/g;
const RESULTS = /^(\s*)((?:%[\w$.-]+(?::\d+)?)(?:\s*,\s*%[\w$.-]+)*)\s*=\s*(.*)$/;
const FUNC = /^\s*(?:func\.func|tt\.func|llvm\.func)\b/;
const BLOCK = /^(\s*)(\^[\w$.-]+)(\((.*)\))?:/;
const ARG = /(%[\w$.-]+)\s*:/g;
const ARG_DECL = /(%[\w$.-]+)\s*:\s*((?:[^,(){}<>]|<[^<>]*(?:<[^<>]*>[^<>]*)*>)+)/g;
const FOR = /^(?<head>.*?\bscf\.for\s+)(?<iv>%[\w$.-]+)(?<mid>\s*=.*?)(?:\biter_args\((?<iters>.*?)\)\s*->\s*\((?<types>[^)]*)\))?(?<tail>\s*(?::\s*\S+\s*)?\{\s*)$/;
const YIELD = /^(\s*)scf\.yield\s+(.*?)\s*:\s*(.*)$/;
const SPACE = /\s+/g;
const HASHED = /%[hi][0-9a-f]{12}(?:_\d+)?/g;
const PERMUTED = /(%h[0-9a-f]+)#(\d+)/g;

/** 12 hex digits of two 32-bit FNV-1a hashes over the code points (as canonical.py's _hash). */
export function canonHash(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (const ch of text) {
    const c = ch.codePointAt(0) as number;
    h1 = Math.imul((h1 ^ c) >>> 0, 0x01000193) >>> 0;
    h2 = (Math.imul((h2 ^ c) >>> 0, 0x01000193) + 0x9e3779b9) >>> 0;
  }
  return h1.toString(16).padStart(8, '0') + (h2 & 0xffff).toString(16).padStart(4, '0');
}

/** Split at `sep` outside brackets and strings (parts trimmed). */
export function splitTop(text: string, sep = ','): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  let inStr = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inStr) {
      if (c === '\\') {
        i++;
      } else if (c === '"') {
        inStr = false;
      }
    } else if (c === '"') {
      inStr = true;
    } else if ('([{<'.includes(c)) {
      depth++;
    } else if (')]}>'.includes(c) && !(c === '>' && i > 0 && text[i - 1] === '-')) {
      depth--;
    } else if (c === sep && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map(s => s.trim());
}

function matchingOpen(text: string): number {
  let depth = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    if (text[i] === '}') {
      depth++;
    } else if (text[i] === '{') {
      depth--;
      if (depth === 0) {
        return i;
      }
    }
  }
  return -1;
}

function sortAttrDict(line: string): string {
  const stripped = line.trimEnd();
  if (!stripped.endsWith('}') || stripped.trimStart() === '}' || !stripped.includes('=')) {
    return line;
  }
  const at = matchingOpen(stripped);
  if (at <= 0 || !' )>'.includes(stripped[at - 1])) {
    return line;
  }
  const entries = splitTop(stripped.slice(at + 1, -1));
  if (entries.length < 2 || !entries.every(e => /^("[^"]*"|[\w$.-]+)(\s*=|$)/.test(e))) {
    return line;
  }
  return `${stripped.slice(0, at + 1)}${[...entries].sort(byCodePoint).join(', ')}}`;
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Lines with #map/#set uses replaced by their definitions, alias and #loc lines dropped;
 * `orig` is each kept line's index in `lines`. */
function inlineAliases(lines: readonly string[]): { body: string[]; orig: number[] } {
  const defs = new Map<string, string>();
  const body: string[] = [];
  const orig: number[] = [];
  lines.forEach((line, k) => {
    const m = ALIAS_DEF.exec(line);
    if (m) {
      defs.set(m[1], stripLoc(m[2]).trim());
    } else if (!LOC_ALIAS.test(line)) {
      body.push(line);
      orig.push(k);
    }
  });
  if (defs.size) {
    for (let k = 0; k < body.length; k++) {
      body[k] = body[k].replace(ALIAS_USE, a => defs.get(a) ?? a);
    }
  }
  return { body, orig };
}

class Canonicaliser {
  readonly names = new Map<string, string>();
  /** Indent of a loop body -> the permutation of its iter_args. */
  readonly yields = new Map<number, number[]>();

  use(text: string): string {
    return text.replace(VALUE, raw => {
      const known = this.names.get(raw);
      if (known !== undefined) {
        return known;
      }
      const at = raw.indexOf('#');
      const base = at >= 0 ? this.names.get(raw.slice(0, at)) : undefined;
      return base !== undefined ? `${base}#${raw.slice(at + 1)}` : raw;
    });
  }

  line(raw: string): string {
    const text = (raw.includes('loc(') ? stripLoc(raw) : raw).replace(SPACE, ' ').trimEnd();
    const indent = raw.length - raw.trimStart().length;
    const stripped = text.trim();
    if (!stripped) {
      return '';
    }
    if (FUNC.test(stripped)) {
      return this.argsByType(stripped);
    }
    if (BLOCK.test(text)) {
      return this.argsByPosition(stripped, 'b');
    }
    const y = YIELD.exec(text);
    if (y && this.yields.has(indent)) {
      return this.yieldLine(indent, y);
    }
    const m = RESULTS.exec(text);
    if (m) {
      return this.define(m[2], sortAttrDict(m[3]), indent);
    }
    const loop = FOR.exec(stripped);
    if (loop) {
      return this.loop(loop, indent);
    }
    return this.use(sortAttrDict(stripped));
  }

  private argsByPosition(text: string, prefix: string): string {
    let k = 0;
    for (const m of text.split('->')[0].matchAll(ARG)) {
      this.names.set(m[1], `%${prefix}${k++}`);
    }
    return this.use(sortAttrDict(text));
  }

  private argsByType(text: string): string {
    const seen = new Map<string, number>();
    for (const m of text.split('->')[0].matchAll(ARG_DECL)) {
      const tag =
        m[2]
          .replace(/[^A-Za-z0-9]+/g, '_')
          .replace(/^_+|_+$/g, '')
          .slice(0, 24) || 'a';
      const k = seen.get(tag) ?? 0;
      seen.set(tag, k + 1);
      this.names.set(m[1], `%${tag}_${k}`);
    }
    return this.use(sortAttrDict(text));
  }

  private define(results: string, rhsIn: string, indent: number): string {
    const loop = FOR.exec(rhsIn);
    const rhs = loop ? this.loop(loop, indent) : this.use(rhsIn);
    const key = canonHash(rhs);
    const parts = results.split(',').map(r => r.trim());
    if (parts.length === 1) {
      const colon = parts[0].indexOf(':');
      const name = colon >= 0 ? parts[0].slice(0, colon) : parts[0];
      const count = colon >= 0 ? parts[0].slice(colon + 1) : '';
      this.names.set(name, `%h${key}`);
      return `%h${key}${count ? `:${count}` : ''} = ${rhs}`;
    }
    parts.forEach((name, k) => {
      this.names.set(name, `%h${key}_${k}`);
    });
    return `${parts.map((_, k) => `%h${key}_${k}`).join(', ')} = ${rhs}`;
  }

  private loop(m: RegExpExecArray, indent: number): string {
    const g = m.groups as Record<string, string | undefined>;
    this.names.set(g.iv as string, `%iv${indent}`);
    const head = `${this.use(g.head as string)}%iv${indent}${this.use(g.mid as string)}`;
    const tail = (g.tail as string).trimEnd();
    if (!g.iters) {
      return head + tail;
    }
    const iters = splitTop(g.iters).map(p => splitTop(p, '='));
    const types = splitTop(g.types ?? '');
    const inits = iters.map(p => (p.length > 1 ? this.use(p[1]) : ''));
    const typeOf = (k: number): string => (k < types.length ? types[k] : '');
    const order = iters.map((_, k) => k).sort((x, y) => byCodePoint(inits[x], inits[y]) || byCodePoint(typeOf(x), typeOf(y)) || x - y);
    iters.forEach((p, k) => {
      this.names.set(p[0], `%i${canonHash(inits[k] + typeOf(k))}`);
    });
    this.yields.set(indent + 2, order);
    const pairs = order.map(k => `${this.names.get(iters[k][0])} = ${inits[k]}`).join(', ');
    const kinds = order
      .filter(k => k < types.length)
      .map(k => types[k])
      .join(', ');
    return `${head}iter_args(${pairs}) -> (${kinds})${tail}`;
  }

  private yieldLine(indent: number, m: RegExpExecArray): string {
    const order = this.yields.get(indent) as number[];
    this.yields.delete(indent);
    const values = splitTop(m[2]).map(v => this.use(v));
    const types = splitTop(m[3]);
    if (values.length !== order.length) {
      return `scf.yield ${values.join(', ')} : ${types.join(', ')}`;
    }
    return `scf.yield ${order.map(k => values[k]).join(', ')} : ${order
      .filter(k => k < types.length)
      .map(k => types[k])
      .join(', ')}`;
  }
}

/**
 * The canonical form of one snapshot's lines, and for each output line the index of the line
 * it came from (alias, #loc and empty lines are dropped).
 */
export function canonicalLines(lines: readonly string[]): { lines: string[]; orig: number[] } {
  const canon = new Canonicaliser();
  const { body, orig: kept } = inlineAliases(lines);
  const out: string[] = [];
  const orig: number[] = [];
  const loops = new Map<string, number[]>();
  body.forEach((raw, k) => {
    const before = new Map(canon.yields);
    const text = canon.line(raw);
    const fresh = [...canon.yields].filter(([ind, v]) => before.get(ind) !== v);
    if (fresh.length && text.startsWith('%h')) {
      loops.set(text.split(':')[0].split(' ')[0], fresh[0][1]);
    }
    if (text) {
      out.push(text);
      orig.push(kept[k]);
    }
  });
  const permuted = loops.size
    ? out.map(s =>
        s.replace(PERMUTED, (all, name: string, k: string) => {
          const order = loops.get(name);
          const at = Number(k);
          return order && at < order.length ? `${name}#${order.indexOf(at)}` : all;
        })
      )
    : out;
  const names = new Map<string, string>();
  const renamed = permuted.map(s =>
    s.replace(HASHED, h => {
      let v = names.get(h);
      if (v === undefined) {
        v = `%v${names.size}`;
        names.set(h, v);
      }
      return v;
    })
  );
  return { lines: renamed, orig };
}
