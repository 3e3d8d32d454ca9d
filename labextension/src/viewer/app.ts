// The viewer: layout, navigation and keyboard. Hosts call mountViewer with the raw payload.

import { append, button, checkbox, clear, h } from './dom';
import { helpOverlay } from './help';
import { type Decorations, IRPane } from './irpane';
import { formatMs, Model, passLabel, VIEW_MODES, type ViewMode } from './model';
import { NotesPanel } from './notes';
import { PassList } from './passlist';
import { checkNotes, type Dump, isPacked, type Note, PayloadError, type SyncFinding, unpackPayload, validatePayload } from './payload';
import { ArrayRows, type Cell, type RowSet } from './rows';
import type { Matcher } from './search';
import { SearchPanel } from './searchpanel';
import { SourcePanel } from './sourcepanel';
import { Strip } from './strip';
import { syncMarks, syncSummary } from './sync';
import { appendVisible, shownText } from './text';

export interface ViewerHost {
  /** Called with every note whenever the notes change in the page. */
  onNotesChange?(notes: Note[]): void;
}

export interface ViewerHandle {
  setNotes(notes: unknown): void;
  dispose(): void;
}

const VIEW_NAMES: Record<ViewMode, string> = { ir: 'IR', unified: 'Unified diff', split: 'Side by side' };

class Viewer {
  readonly root: HTMLDivElement;
  private readonly strip: Strip;
  private readonly passes: PassList;
  private readonly gotoBox: HTMLInputElement;
  private readonly gotoInfo = h('span', { cls: 'air-goto-info', aria: { live: 'polite' } });
  private listShown = true;
  private readonly pane: IRPane;
  private readonly search: SearchPanel;
  private readonly source: SourcePanel;
  private readonly notes: NotesPanel;
  private readonly info = h('div', { cls: 'air-passinfo', aria: { live: 'polite' } });
  private readonly syncInfo = h('div', { cls: 'air-syncinfo' });
  private readonly viewButtons = new Map<ViewMode, HTMLButtonElement>();
  private help: HTMLElement | null = null;
  private matcher: Matcher | null = null;
  private syncLens = false;
  /** Row of the search hit last stepped to in the current pass (-1: none yet). */
  private hitRow = -1;
  /** Row of the change block last stepped to with ] / [ (-1: none yet). */
  private changeRow = -1;
  /** Row of the sync op or finding last stepped to (-1: none yet). */
  private syncRow = -1;

  constructor(
    private readonly model: Model,
    private readonly host: ViewerHost
  ) {
    this.strip = new Strip(
      model,
      i => this.go(i),
      first => this.expand(first)
    );
    this.passes = new PassList(model, { onPick: i => this.go(i), onExpand: first => this.expand(first) });
    this.gotoBox = h('input', { cls: 'air-goto', placeholder: 'go to pass (g)', aria: { label: 'go to pass by name or index' } });
    this.gotoBox.addEventListener('keydown', ev => this.onGotoKey(ev));
    this.pane = new IRPane({
      onLineNote: line => this.notes.openForm(line + 1),
      onJumpRow: row => this.pane.list.scrollToRow(row),
      fullText: (c, current) => this.fullText(c, current)
    });
    this.search = new SearchPanel(model, {
      onSearch: (m, counts) => {
        this.matcher = m;
        this.strip.setHits(counts);
        this.pane.redecorate(this.decorations());
      },
      onJump: i => this.go(i),
      onStep: dir => this.stepHit(dir)
    });
    this.source = new SourcePanel(model, () => this.afterSourcePick());
    this.notes = new NotesPanel(model, { onChange: () => this.notesChanged(), onJump: i => this.go(i) });
    this.root = h('div', { cls: 'air-root', tabindex: 0, role: 'application', aria: { label: `IR timeline ${shownText(model.p.title)}` } });
    this.root.setAttribute('data-lm-suppress-shortcuts', 'true');
    this.root.addEventListener('keydown', ev => this.onKey(ev));
    this.layout();
  }

  private layout(): void {
    const { p } = this.model;
    const meta = [p.meta.target, p.meta.toolchain].filter(x => typeof x === 'string').join(' · ');
    const header = h(
      'div',
      { cls: 'air-header' },
      h('span', { cls: 'air-title', title: shownText(p.title) }, shownText(p.title)),
      h('span', { cls: 'air-meta' }, `${meta}${meta ? ' · ' : ''}${p.dumps.length} dumps, ${p.stages.length} stages`),
      button('?', 'keyboard shortcuts (?)', () => this.toggleHelp(), 'air-help-btn')
    );
    const failure = this.failureHeader();
    const warnings = p.warnings.length ? h('div', { cls: 'air-warnings' }, ...p.warnings.map(w => h('div', null, `⚠ ${shownText(w)}`))) : null;
    const main = h(
      'div',
      { cls: 'air-main' },
      this.passes.node,
      p.source ? this.source.node : null,
      h('div', { cls: 'air-center' }, this.info, this.syncInfo, this.pane.labels, this.pane.list.node, this.pane.hscroll)
    );
    this.root.append(header, ...(failure ? [failure] : []), ...(warnings ? [warnings] : []), this.toolbar(), this.strip.node, this.search.node, main, this.notes.node);
  }

  /**
   * Failure first: for each stage that failed, its failed pass (or its last), the first error
   * lines it printed, and buttons to that pass and to the IR before it.
   */
  private failureHeader(): HTMLElement | null {
    const { p } = this.model;
    const rows: HTMLElement[] = [];
    p.stages.forEach((st, s) => {
      const dumps = p.dumps.filter(d => d.stage === s);
      const failedPass = dumps.find(d => d.phase === 'failed');
      if ((st.returncode ?? 0) === 0 && !failedPass) {
        return;
      }
      const at = failedPass ?? dumps[dumps.length - 1];
      const errors = p.messages.filter(m => m.stage === s && m.level === 'error').slice(0, 3);
      const what = `✗ stage ${st.name} failed${st.returncode ? ` (exit code ${st.returncode})` : ''}`;
      const row = h('div', { cls: 'air-failure', role: 'alert' }, h('span', { cls: 'air-failure-what' }, shownText(what)));
      if (at) {
        row.appendChild(button(`${failedPass ? 'failed pass' : 'last pass'} #${at.i} ${passLabel(at)}`, 'go to it (its diagnostics are shown with it)', () => this.go(at.i), 'air-link'));
        const before = this.model.changeOf(at.i)[0];
        if (before && before.i !== at.i) {
          row.appendChild(button(`IR before it (#${before.i})`, 'the state the pass started from', () => this.go(before.i), 'air-link'));
        }
      }
      for (const m of errors) {
        const line = h('div', { cls: 'air-failure-msg' });
        appendVisible(line, m.text.trim());
        row.appendChild(line);
      }
      rows.push(row);
    });
    return rows.length ? h('div', { cls: 'air-failures' }, ...rows) : null;
  }

  private toolbar(): HTMLElement {
    const scope = h('select', { cls: 'air-scope', aria: { label: 'scope' } }, h('option', { value: '' }, 'all scopes'), ...this.model.scopes().map(s => h('option', { value: s }, s)));
    scope.addEventListener('change', () => this.refilter(() => (this.model.scope = scope.value)));
    const filter = h('input', { cls: 'air-filter', type: 'search', placeholder: 'filter (fuzzy)', aria: { label: 'pass filter (fuzzy)' } });
    filter.addEventListener('input', () => this.refilter(() => (this.model.filter = filter.value)));
    for (const v of VIEW_MODES) {
      this.viewButtons.set(
        v,
        button(VIEW_NAMES[v], `view: ${VIEW_NAMES[v]} (d)`, () => this.setView(v), 'air-view')
      );
    }
    const listButton = button('☰ Passes', 'show / hide the pass list (l)', () => this.toggleList(), 'air-list-btn air-on');
    listButton.setAttribute('aria-pressed', 'true');
    return h(
      'div',
      { cls: 'air-toolbar', role: 'toolbar', aria: { label: 'view options' } },
      listButton,
      scope,
      filter,
      this.gotoBox,
      this.gotoInfo,
      checkbox('hide unchanged', 'hide passes that changed nothing', false, on => this.refilter(() => (this.model.hideUnchanged = on))),
      checkbox('collapse cse', 'collapse consecutive canonicalize/cse/dce passes into one entry', false, on => this.refilter(() => (this.model.collapseCleanup = on))),
      h('span', { cls: 'air-views' }, ...this.viewButtons.values()),
      checkbox('no locs', 'drop #loc lines and loc(...) in every view', false, on => this.renorm(() => (this.model.norm = { ...this.model.norm, dropLoc: on }))),
      checkbox('diff locs', 'show loc(...) in the diff views too (hidden there by default; hover a line to see it)', false, on => this.renorm(() => (this.model.diffLocs = on))),
      checkbox('canonical SSA', 'rename %values and ^blocks in order', false, on => this.renorm(() => (this.model.norm = { ...this.model.norm, canonSsa: on }))),
      checkbox('sync lens', 'highlight hivm sync ops, pair set_flag/wait_flag (s)', false, on => this.setSync(on))
    );
  }

  start(): void {
    const order = this.model.order();
    this.model.cur = order.length ? order[0] : 0;
    this.strip.build();
    this.passes.build();
    this.render(true);
    requestAnimationFrame(() => setTimeout(() => this.search.censusByDefault(), 0));
  }

  go(i: number): void {
    if (i < 0 || i >= this.model.p.dumps.length) {
      return;
    }
    this.model.cur = i;
    this.strip.setCurrent(i);
    this.passes.setCurrent(i);
    this.render(true);
  }

  private refilter(change: () => void): void {
    change();
    this.model.invalidateOrder();
    this.strip.build();
    this.passes.build();
    this.search.update();
  }

  private expand(first: number): void {
    this.model.expanded.add(first);
    this.strip.build();
    this.passes.build();
  }

  private toggleList(): void {
    this.listShown = !this.listShown;
    this.passes.node.classList.toggle('air-hidden', !this.listShown);
    const b = this.root.querySelector('.air-list-btn');
    b?.classList.toggle('air-on', this.listShown);
    b?.setAttribute('aria-pressed', String(this.listShown));
  }

  private openGoto(): void {
    this.gotoBox.value = '';
    this.gotoInfo.textContent = '';
    this.gotoBox.focus();
  }

  private onGotoKey(ev: KeyboardEvent): void {
    if (ev.key !== 'Enter') {
      return;
    }
    ev.preventDefault();
    const target = this.model.findPass(this.gotoBox.value);
    if (target === null) {
      this.gotoInfo.textContent = `no pass matches “${shownText(this.gotoBox.value)}”`;
      return;
    }
    this.gotoInfo.textContent = '';
    this.gotoBox.value = '';
    this.go(target);
    this.root.focus();
  }

  private renorm(change: () => void): void {
    change();
    this.render(false);
  }

  private setView(v: ViewMode): void {
    this.model.view = v;
    this.render(false);
  }

  /** The lens only decorates: the rows and the scroll position stay as they are. */
  private setSync(on: boolean): void {
    this.syncLens = on;
    this.syncRow = -1;
    this.pane.redecorate(this.decorations());
  }

  /** Next (1) or previous (-1) sync op of the shown IR (the lens turns on if it was off). */
  private stepSync(dir: 1 | -1, findings: boolean): void {
    if (!this.syncLens) {
      this.toggleSyncBox();
    }
    const deco = this.decorations();
    const sync = deco.sync;
    const found = deco.findings;
    const row = this.pane.nextRowWhere(this.syncRow, dir, c => (findings ? (found?.has(c.line) ?? false) : (sync?.has(c.no) ?? false)));
    if (row < 0) {
      this.syncInfo.textContent = `sync lens: no ${findings ? 'finding' : 'sync op'} ${dir === 1 ? 'below' : 'above'} this one`;
      return;
    }
    this.syncRow = row;
    this.pane.setHit(row);
    this.pane.list.scrollToRow(row);
  }

  private render(stepped: boolean): void {
    const { p, cur, view } = this.model;
    this.hitRow = -1;
    this.changeRow = -1;
    this.syncRow = -1;
    this.pane.setHit(-1);
    if (view === 'ir') {
      this.pane.setLabels(null, null, false);
    }
    const d = p.dumps[cur];
    const { diff, rows } = this.model.currentRows();
    for (const [v, b] of this.viewButtons) {
      b.classList.toggle('air-on', v === view);
      b.setAttribute('aria-pressed', String(v === view));
    }
    this.drawInfo(d.i, diff.hasPrev ? `+${diff.added} −${diff.removed}` : 'first state of this scope');
    this.search.update();
    this.source.update();
    this.notes.update();
    // The IR pane last: its rows are the bulk of the frame, laid out once after every change.
    const deco = this.decorations();
    const picked = deco.srcLines;
    let top = 0;
    if (stepped && picked?.size) {
      // a source line is picked: every pass opens at its ops
      top = Math.max(0, this.firstRowOf(rows, picked) - 3);
    } else if (view !== 'ir' && rows.length > 0 && rows.row(0).gap !== null) {
      top = 1;
    } else if (view === 'ir' && stepped && d.changed) {
      top = Math.max(0, rows.firstAdded() - 3);
    }
    if (view !== 'ir') {
      const [before, after] = this.model.changeOf(cur);
      this.pane.setLabels(this.sideLabel(before), this.sideLabel(after), view === 'split');
    }
    if (view !== 'ir' && rows.length === 0) {
      const gap = diff.hasPrev ? 'no change against the previous state of this scope' : 'no previous state: this is the first dump of its scope';
      this.pane.show(new ArrayRows([{ left: null, right: null, gap }]), false, deco, 0);
    } else {
      this.pane.show(rows, view === 'split', deco, top);
    }
  }

  /** A row's tooltip where the view hides its locations: the line as the IR has it. */
  private fullText(c: Cell, current: boolean): string | null {
    if (!this.model.locsHidden()) {
      return null;
    }
    const [before, after] = this.model.changeOf(this.model.cur);
    const d = current ? after : before;
    const snap = d ? this.model.p.snapshots[d.snap] : null;
    const id = snap ? snap[c.line] : undefined;
    return id === undefined ? null : shownText(this.model.table.text(id).trim());
  }

  private sideLabel(d: Dump | null): string | null {
    if (d === null) {
      return null;
    }
    const st = this.model.p.stages[d.stage].name;
    return shownText(`#${d.i} ${st}:${passLabel(d)} · ${d.phase} · ${d.scope}`);
  }

  /** Next (1) or previous (-1) block of changed lines in the current view. */
  private stepChange(dir: 1 | -1): void {
    const row = this.pane.nextChange(this.changeRow, dir);
    if (row >= 0) {
      this.changeRow = row;
      this.pane.list.scrollToRow(row);
      this.pane.setHit(row);
    }
  }

  private firstRowOf(rows: RowSet, lines: Set<number>): number {
    for (let k = 0; k < rows.length; k++) {
      const c = rows.row(k).right;
      if (c && lines.has(c.line)) {
        return k;
      }
    }
    return 0;
  }

  private drawInfo(i: number, change: string): void {
    const { p } = this.model;
    const d = p.dumps[i];
    const order = this.model.order();
    const pos = order.indexOf(i);
    clear(this.info);
    append(
      this.info,
      h('span', { cls: 'air-pos' }, `#${i} (${pos >= 0 ? pos + 1 : '–'}/${order.length})`),
      h('span', { cls: 'air-stagename' }, shownText(p.stages[d.stage].name)),
      h('span', { cls: 'air-passname', title: shownText(passLabel(d)) }, shownText(passLabel(d))),
      h('span', { cls: 'air-passfull' }, d.pass !== passLabel(d) ? `(${shownText(d.pass)})` : ''),
      h(
        'span',
        { cls: `air-phase air-phase-${d.phase}`, title: d.phase === 'before' && d.next >= 0 ? `IR printed before the pass; its output is #${d.next}, shown here` : '' },
        d.phase === 'before' && d.next >= 0 ? `before → #${d.next}` : d.phase
      ),
      h('span', { cls: 'air-scopename', title: shownText(d.scope) }, shownText(d.scope)),
      h('span', { cls: 'air-change' }, d.changed ? change : 'unchanged'),
      h('span', { cls: 'air-lines' }, `${p.snapshots[this.model.shown(i).snap].length} lines${d.truncated ? ' (truncated)' : ''}`),
      d.ms === null ? null : h('span', { cls: 'air-ms', title: 'time the tool reported for this pass' }, this.msText(d.stage, d.ms))
    );
    const msgs = this.model.messagesOf(i);
    if (msgs.length) {
      // a box of its own, a few lines high: a stage's many warnings never squeeze the IR
      const box = h('div', { cls: 'air-msgs', role: 'log', aria: { label: `${msgs.length} compiler messages` } });
      for (const m of msgs) {
        const msg = h('div', { cls: `air-msg air-msg-${m.level}` });
        appendVisible(msg, m.text);
        box.appendChild(msg);
      }
      this.info.appendChild(box);
    }
  }

  private msText(stage: number, ms: number): string {
    const total = this.model.stageMs.get(stage)?.total ?? 0;
    const share = total > 0 ? ` (${Math.round((100 * ms) / total)}% of ${this.model.p.stages[stage].name})` : '';
    return `${formatMs(ms)}${share}`;
  }

  private decorations(): Decorations {
    const d = this.model.p.dumps[this.model.cur];
    const shown = this.model.shown();
    const noted = new Map<number, string>();
    for (const n of this.model.notesOf(d.i)) {
      if (n.ir_line !== null) {
        noted.set(n.ir_line - 1, n.text);
      }
    }
    let sync = null;
    if (this.syncLens) {
      const v = this.model.snapView(shown.snap);
      const texts = Array.from(v.ids, id => this.model.table.text(id));
      sync = syncMarks(texts);
      const n = this.model.p.syncCheck.get(shown.i)?.length ?? 0;
      this.syncInfo.textContent = `sync lens: ${syncSummary(sync)}${n ? ` · ${n} checker finding${n === 1 ? '' : 's'} (e / E)` : ''} · f / F: next / previous sync op`;
    } else {
      this.syncInfo.textContent = '';
    }
    const sel = this.source.selected;
    const found = this.syncLens ? this.findingsOf(shown) : null;
    return { matcher: this.matcher, sync, srcLines: sel === null ? null : this.source.irLinesOf(shown.snap, sel), noted, findings: found };
  }

  /** The sync checker's findings on the shown dump, by original line index. */
  private findingsOf(d: Dump): Map<number, SyncFinding[]> | null {
    const list = this.model.p.syncCheck.get(d.i);
    if (!list || list.length === 0) {
      return null;
    }
    const out = new Map<number, SyncFinding[]>();
    for (const f of list) {
      out.set(f.line - 1, [...(out.get(f.line - 1) ?? []), f]);
    }
    return out;
  }

  /** Next (or previous) matching line: in this pass, then in the next pass that has one. */
  private stepHit(dir: 1 | -1): void {
    const m = this.matcher;
    if (!m) {
      return;
    }
    const row = this.pane.nextRowWhere(this.hitRow, dir, c => m.test(c.text));
    if (row >= 0) {
      this.showHit(row);
      return;
    }
    const order = this.model.order();
    const at = order.indexOf(this.model.cur);
    for (let k = 1; k <= order.length; k++) {
      const i = order[(((at + dir * k) % order.length) + order.length) % order.length];
      if (this.search.hitsIn(i) > 0) {
        this.go(i);
        const first = this.pane.nextRowWhere(dir === 1 ? -1 : this.pane.rowCount(), dir, c => m.test(c.text));
        if (first >= 0) {
          this.showHit(first);
        }
        return;
      }
    }
    this.search.say('no line matches in the shown passes');
  }

  private showHit(row: number): void {
    this.hitRow = row;
    this.pane.setHit(row);
    this.pane.list.scrollToRow(row);
    const m = this.matcher as Matcher;
    const all = this.pane.countWhere(c => m.test(c.text));
    const nth = this.pane.countWhere(c => m.test(c.text), row + 1);
    this.search.say(`hit ${nth} of ${all} in #${this.model.cur} · ${this.model.order().filter(i => this.search.hitsIn(i) > 0).length} passes match`);
  }

  private afterSourcePick(): void {
    const deco = this.decorations();
    this.pane.redecorate(deco);
    this.source.update();
    if (deco.srcLines?.size) {
      const lines = deco.srcLines;
      const row = this.pane.firstRowWhere(c => lines.has(c.line) && c.kind !== 'del');
      if (row >= 0) {
        this.pane.list.scrollToRow(row);
      }
    }
  }

  private notesChanged(): void {
    this.notes.update();
    this.strip.build();
    this.passes.build();
    this.pane.redecorate(this.decorations());
    this.host.onNotesChange?.(this.model.notes);
  }

  setNotes(raw: unknown): void {
    try {
      this.model.notes = checkNotes(raw, this.model.p.dumps);
    } catch (e) {
      console.warn('ascend-ir-lab: ignoring invalid notes', e);
      return;
    }
    this.notes.update();
    this.strip.build();
    this.passes.build();
    this.pane.redecorate(this.decorations());
  }

  private toggleHelp(): void {
    if (this.help) {
      this.help.remove();
      this.help = null;
    } else {
      this.help = helpOverlay(() => this.toggleHelp());
      this.root.appendChild(this.help);
    }
    this.root.focus();
  }

  private stepTo(target: number | null): void {
    if (target !== null) {
      this.go(target);
    }
  }

  private onKey(ev: KeyboardEvent): void {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) {
      return;
    }
    ev.stopPropagation();
    const t = ev.target as HTMLElement;
    if (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT') {
      if (ev.key === 'Escape') {
        t.blur();
        this.root.focus();
      }
      return;
    }
    const actions: Record<string, () => void> = {
      n: () => this.stepTo(this.model.step(1, true)),
      p: () => this.stepTo(this.model.step(-1, true)),
      j: () => this.stepTo(this.model.step(1, false)),
      k: () => this.stepTo(this.model.step(-1, false)),
      '/': () => this.search.focus(),
      g: () => this.openGoto(),
      ']': () => this.stepChange(1),
      f: () => this.stepSync(1, false),
      F: () => this.stepSync(-1, false),
      e: () => this.stepSync(1, true),
      E: () => this.stepSync(-1, true),
      '[': () => this.stepChange(-1),
      l: () => this.toggleList(),
      d: () => this.setView(VIEW_MODES[(VIEW_MODES.indexOf(this.model.view) + 1) % VIEW_MODES.length]),
      s: () => this.toggleSyncBox(),
      '?': () => this.toggleHelp(),
      Escape: () => this.help && this.toggleHelp()
    };
    const act = actions[ev.key];
    if (act) {
      ev.preventDefault();
      act();
    }
  }

  private toggleSyncBox(): void {
    const box = Array.from(this.root.querySelectorAll<HTMLLabelElement>('.air-check')).find(l => l.textContent === 'sync lens');
    const input = box?.querySelector('input');
    if (input) {
      input.checked = !input.checked;
      this.setSync(input.checked);
    }
  }
}

function errorPanel(message: string): HTMLElement {
  return h(
    'div',
    { cls: 'air-root air-error', role: 'alert' },
    h('div', { cls: 'air-error-title' }, 'This IR timeline cannot be shown'),
    h('div', { cls: 'air-error-text' }, message),
    h('div', { cls: 'air-error-hint' }, 'The payload failed validation; regenerate it with ascend-ir-lab of a matching version.')
  );
}

/** Validate the payload and draw the viewer into el (or an error panel if it is invalid). */
export function mountViewer(el: HTMLElement, raw: unknown, host: ViewerHost = {}): ViewerHandle {
  clear(el);
  let viewer: Viewer;
  try {
    viewer = new Viewer(new Model(validatePayload(raw)), host);
  } catch (e) {
    const msg = e instanceof PayloadError ? e.message : `unexpected error: ${String(e)}`;
    el.appendChild(errorPanel(msg));
    return { setNotes: () => undefined, dispose: () => clear(el) };
  }
  el.appendChild(viewer.root);
  viewer.start();
  return { setNotes: n => viewer.setNotes(n), dispose: () => clear(el) };
}

/**
 * mountViewer for a payload that may be packed (gzip+base64): unpacked first with the browser's
 * DecompressionStream; a plain payload mounts at once. Bad packed data gives the error panel.
 */
export async function mountAny(el: HTMLElement, raw: unknown, host: ViewerHost = {}): Promise<ViewerHandle> {
  if (!isPacked(raw)) {
    return mountViewer(el, raw, host);
  }
  let plain: unknown;
  try {
    plain = await unpackPayload(raw);
  } catch (e) {
    clear(el);
    el.appendChild(errorPanel(e instanceof PayloadError ? e.message : `unexpected error: ${String(e)}`));
    return { setNotes: () => undefined, dispose: () => clear(el) };
  }
  return mountViewer(el, plain, host);
}
