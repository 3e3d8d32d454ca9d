// Two Runs side by side: the pass-aligned pairs as one list (same, differs, noise, inherited,
// one side only; replaced passes shown as A's → B's), the first (real) divergence a click
// away, and the two IRs of the picked pair side by side as a diff over one line table.

import type { Comparison, Pair, PairKind } from './comparepayload';
import { diffIds } from './diff';
import { button, checkbox, h } from './dom';
import { type Decorations, IRPane } from './irpane';
import { passLabel } from './model';
import { namesSelect } from './names';
import { LineTable, type NormFlags, normalizeSnapshot, normKey, type SnapView } from './normalize';
import type { Dump, Payload } from './payload';
import { ArrayRows, countChanges, diffRows, IrRows, type RowSet } from './rows';
import { shownText } from './text';

const KINDS: Record<PairKind, { mark: string; text: string }> = {
  same: { mark: '=', text: 'same output' },
  real: { mark: '≠', text: 'differs' },
  noise: { mark: '~', text: 'differs, but varies between identical compiles of A (noise)' },
  inherited: { mark: '≈', text: 'differs only as its input did (the same change, up to names and numbers)' },
  'only-a': { mark: '◀', text: 'runs only in A' },
  'only-b': { mark: '▶', text: 'runs only in B' }
};

const NO_DECO: Decorations = { matcher: null, sync: null, srcLines: null, noted: new Map(), findings: null };

/** The Dump whose IR shows what dump i's pass made: itself, or a Before dump's pass output. */
function outputOf(p: Payload, i: number): Dump | null {
  if (i < 0) {
    return null;
  }
  const d = p.dumps[i];
  return d.phase === 'before' && d.next >= 0 ? p.dumps[d.next] : d;
}

export class CompareView {
  readonly root: HTMLDivElement;
  private readonly table: LineTable;
  private readonly pane: IRPane;
  private readonly list = h('div', { cls: 'air-cmp-list', role: 'listbox', aria: { label: 'passes of both Runs, aligned' } });
  private readonly info = h('div', { cls: 'air-passinfo air-cmp-info', aria: { live: 'polite' } });
  private readonly rows = new Map<number, HTMLElement>();
  private readonly views = new Map<string, SnapView>();
  private cur = 0;
  /** Row of the change block last stepped to with ] / [ (-1: none yet). */
  private changeRow = -1;
  private onlyDiffering = false;
  private hideNoise = false;
  private norm: NormFlags = { dropLoc: true, canonSsa: false };

  constructor(private readonly c: Comparison) {
    this.table = new LineTable(c.lines);
    this.pane = new IRPane({ onLineNote: () => undefined, onJumpRow: row => this.pane.list.scrollToRow(row), fullText: () => null });
    this.root = h('div', { cls: 'air-root air-compare', tabindex: 0, role: 'application', aria: { label: `two Runs side by side: ${shownText(c.title)}` } });
    this.root.setAttribute('data-lm-suppress-shortcuts', 'true');
    this.root.addEventListener('keydown', ev => this.onKey(ev));
    this.root.append(
      this.header(),
      this.toolbar(),
      h('div', { cls: 'air-main' }, h('div', { cls: 'air-passlist air-cmp-side' }, this.list), h('div', { cls: 'air-center' }, this.info, this.pane.labels, this.pane.list.node, this.pane.hscroll))
    );
  }

  private header(): HTMLElement {
    const { c } = this;
    const count = (k: PairKind): number => c.pairs.filter(p => p.kind === k).length;
    const differ = count('real') + count('noise') + count('inherited');
    const parts = [`${c.pairs.length} passes aligned`, `${count('same')} same`, `${differ} differ`];
    if (c.noiseBuilds) {
      parts.push(`${count('noise')} of them noise (${c.noiseBuilds} identical compiles of ${c.names[0]})`);
    }
    parts.push(`${count('inherited')} inherited`, `only in ${c.names[0]}: ${count('only-a')}`, `only in ${c.names[1]}: ${count('only-b')}`);
    const jumps = h('div', { cls: 'air-cmp-jumps' });
    const jump = (label: string, k: number | null): void => {
      if (k !== null) {
        jumps.appendChild(button(`${label}: ${this.pairName(c.pairs[k])}`, 'show this pair side by side', () => this.go(k), 'air-link air-cmp-jump'));
      }
    };
    // as the text form says it: with a noise measured, the first difference that is not noise
    const realWord = c.noiseBuilds ? 'first real divergence' : 'first pass that changed something else';
    if (c.firstDivergence !== c.firstReal || !c.noiseBuilds) {
      jump('first divergence', c.firstDivergence);
    }
    if (c.firstReal !== c.firstDivergence || c.noiseBuilds) {
      jump(realWord, c.firstReal);
    }
    if (c.firstDivergence === null) {
      jumps.appendChild(h('span', null, 'every pass prints the same IR on both sides'));
    }
    const summary = h('details', { cls: 'air-cmp-summary' }, h('summary', null, 'summary'), h('pre', null, shownText(c.summary.join('\n'))));
    return h(
      'div',
      { cls: 'air-cmp-head' },
      h('div', { cls: 'air-header' }, h('span', { cls: 'air-title', title: shownText(c.title) }, shownText(c.title)), h('span', { cls: 'air-meta air-cmp-counts' }, parts.join(' · '))),
      jumps,
      summary
    );
  }

  private toolbar(): HTMLElement {
    return h(
      'div',
      { cls: 'air-toolbar', role: 'toolbar', aria: { label: 'comparison options' } },
      checkbox('differences only', 'list only the passes whose output differs or that run on one side', false, on => this.refilter(() => (this.onlyDiffering = on))),
      checkbox('hide noise', 'leave out differences that vary between identical compiles of A', false, on => this.refilter(() => (this.hideNoise = on))),
      checkbox('diff locs', 'show loc(...) (hidden by default: every line ends in one)', false, on => this.renorm({ ...this.norm, dropLoc: !on })),
      namesSelect(names => this.renorm({ ...this.norm, ...names })),
      h('span', { cls: 'air-cmp-keys' }, 'j/k: pair · n/p: next/previous difference · ]/[: change')
    );
  }

  start(): void {
    this.drawList();
    this.go(this.c.firstReal ?? this.c.firstDivergence ?? 0);
  }

  private shownPairs(): number[] {
    return this.c.pairs
      .map((_, k) => k)
      .filter(k => {
        const kind = this.c.pairs[k].kind;
        return !(this.onlyDiffering && kind === 'same') && !(this.hideNoise && kind === 'noise');
      });
  }

  private stageOf(p: Pair): string {
    const [payload, i] = p.a >= 0 ? [this.c.a, p.a] : [this.c.b, p.b];
    return payload.stages[payload.dumps[i].stage].name;
  }

  private pairName(p: Pair): string {
    const da = p.a >= 0 ? this.c.a.dumps[p.a] : null;
    const db = p.b >= 0 ? this.c.b.dumps[p.b] : null;
    const label = da && db && passLabel(da) !== passLabel(db) ? `${passLabel(da)} → ${passLabel(db)}` : passLabel((da ?? db) as Dump);
    return shownText(`${label} #${p.a >= 0 ? p.a : '–'} ↔ #${p.b >= 0 ? p.b : '–'}`);
  }

  private drawList(): void {
    this.list.textContent = '';
    this.rows.clear();
    let stage = '';
    for (const k of this.shownPairs()) {
      const p = this.c.pairs[k];
      const st = this.stageOf(p);
      if (st !== stage) {
        stage = st;
        this.list.appendChild(h('div', { cls: 'air-pl-stage', role: 'presentation' }, h('span', { cls: 'air-pl-stagename' }, shownText(st))));
      }
      this.list.appendChild(this.row(k, p));
    }
    if (this.rows.size === 0) {
      this.list.appendChild(h('div', { cls: 'air-empty' }, 'No pass differs.'));
    }
    this.rows.get(this.cur)?.classList.add('air-current');
  }

  private row(k: number, p: Pair): HTMLElement {
    const da = p.a >= 0 ? this.c.a.dumps[p.a] : null;
    const db = p.b >= 0 ? this.c.b.dumps[p.b] : null;
    const d = (da ?? db) as Dump;
    const swapped = da !== null && db !== null && passLabel(da) !== passLabel(db);
    const name = swapped ? `${passLabel(da as Dump)} → ${passLabel(db as Dump)}` : passLabel(d);
    const what = `${KINDS[p.kind].text}${swapped ? `; ${this.c.names[1]} runs ${passLabel(db as Dump)} here` : ''}`;
    const r = h(
      'div',
      {
        cls: `air-cmp-row air-cmp-${p.kind}${swapped ? ' air-cmp-swapped' : ''}`,
        role: 'option',
        data: { pair: String(k) },
        aria: { selected: 'false' },
        title: shownText(`${this.c.names[0]} #${p.a >= 0 ? p.a : '–'} ↔ ${this.c.names[1]} #${p.b >= 0 ? p.b : '–'} · ${name} · ${d.scope} · ${what}`)
      },
      h('span', { cls: 'air-cmp-mark', aria: { label: KINDS[p.kind].text } }, KINDS[p.kind].mark),
      h('span', { cls: 'air-cmp-idx' }, p.a >= 0 ? `#${p.a}` : '–'),
      h('span', { cls: 'air-cmp-name' }, shownText(name)),
      h('span', { cls: 'air-cmp-idx' }, p.b >= 0 ? `#${p.b}` : '–')
    );
    r.addEventListener('click', () => this.go(k));
    this.rows.set(k, r);
    return r;
  }

  private refilter(change: () => void): void {
    change();
    this.drawList();
  }

  private renorm(norm: NormFlags): void {
    this.norm = norm;
    this.render();
  }

  go(k: number): void {
    if (k < 0 || k >= this.c.pairs.length) {
      return;
    }
    const old = this.rows.get(this.cur);
    old?.classList.remove('air-current');
    old?.setAttribute('aria-selected', 'false');
    this.cur = k;
    const r = this.rows.get(k);
    if (r) {
      r.classList.add('air-current');
      r.setAttribute('aria-selected', 'true');
      r.scrollIntoView({ block: 'nearest' });
    }
    this.render();
  }

  private view(side: 'a' | 'b', d: Dump | null): SnapView {
    if (d === null) {
      return { ids: [], orig: [] };
    }
    const key = `${side}${d.snap}|${normKey(this.norm)}`;
    let v = this.views.get(key);
    if (!v) {
      v = normalizeSnapshot(this.table, (side === 'a' ? this.c.a : this.c.b).snapshots[d.snap], this.norm);
      this.views.set(key, v);
    }
    return v;
  }

  private sideLabel(name: string, payload: Payload, i: number): string {
    if (i < 0) {
      return `${name}: does not run this pass`;
    }
    const d = payload.dumps[i];
    return shownText(`${name} #${i} ${payload.stages[d.stage].name}:${passLabel(d)} · ${d.phase} · ${d.scope}`);
  }

  private render(): void {
    const p = this.c.pairs[this.cur];
    this.changeRow = -1;
    const da = outputOf(this.c.a, p.a);
    const db = outputOf(this.c.b, p.b);
    const va = this.view('a', da);
    const vb = this.view('b', db);
    const edits = diffIds(va.ids, vb.ids);
    const { added, removed } = countChanges(edits);
    let rows: RowSet;
    let split = true;
    if (added === 0 && removed === 0) {
      rows = new IrRows(new Uint8Array(vb.ids.length), vb, this.table); // the same IR: shown once
      split = false;
    } else {
      rows = new ArrayRows(diffRows(edits, va, vb, this.table, true));
    }
    this.pane.setLabels(this.sideLabel(this.c.names[0], this.c.a, p.a), this.sideLabel(this.c.names[1], this.c.b, p.b), split);
    const same = split ? `${this.c.names[1]}: +${added} −${removed} against ${this.c.names[0]}` : `the same IR on both sides (${vb.ids.length} lines)`;
    this.info.textContent = '';
    this.info.append(
      h('span', { cls: 'air-pos' }, `pair ${this.cur + 1}/${this.c.pairs.length}`),
      h('span', { cls: `air-cmp-kind air-cmp-${p.kind}` }, `${KINDS[p.kind].mark} ${KINDS[p.kind].text}`),
      h('span', { cls: 'air-passname' }, this.pairName(p)),
      h('span', { cls: 'air-change' }, same)
    );
    this.pane.show(rows, split, NO_DECO, split && rows.length > 1 && rows.row(0).gap !== null ? 1 : 0);
  }

  private step(dir: 1 | -1, differing: boolean): void {
    const shown = this.shownPairs();
    const at = shown.indexOf(this.cur);
    for (let k = at + dir; k >= 0 && k < shown.length; k += dir) {
      if (!differing || this.c.pairs[shown[k]].kind === 'real') {
        this.go(shown[k]);
        return;
      }
    }
  }

  private onKey(ev: KeyboardEvent): void {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || (ev.target as HTMLElement).tagName === 'INPUT') {
      return;
    }
    ev.stopPropagation();
    const actions: Record<string, () => void> = {
      j: () => this.step(1, false),
      k: () => this.step(-1, false),
      n: () => this.step(1, true),
      p: () => this.step(-1, true),
      ']': () => this.change(1),
      '[': () => this.change(-1)
    };
    const act = actions[ev.key];
    if (act) {
      ev.preventDefault();
      act();
    }
  }

  private change(dir: 1 | -1): void {
    const row = this.pane.nextChange(this.changeRow, dir);
    if (row >= 0) {
      this.changeRow = row;
      this.pane.list.scrollToRow(row);
      this.pane.setHit(row);
    }
  }
}
