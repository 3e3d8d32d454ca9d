// The viewer: layout, navigation between passes and the keyboard. Hosts mount it through
// mount.ts; the toolbar, the pass info line, decorations and stepping inside a pass live in
// modules of their own.

import { Ahead, openingRow } from './ahead';
import type { CaptureHost } from './capture';
import { decorationsOf, fullLineText } from './decorations';
import { h } from './dom';
import { GotoBox } from './goto';
import { helpOverlay } from './help';
import { type Decorations, IRPane } from './irpane';
import { bindKeys } from './keys';
import { type Model, VIEW_MODES, type ViewMode } from './model';
import { NotesPanel } from './notes';
import { drawPassInfo, sideLabel } from './passinfo';
import { PassList } from './passlist';
import { checkNotes, type Note } from './payload';
import { ArrayRows, type RowSet } from './rows';
import type { Matcher } from './search';
import { SearchPanel } from './searchpanel';
import { SourcePanel } from './sourcepanel';
import { Stepper } from './stepper';
import { Strip } from './strip';
import { shownText } from './text';
import { type ToolbarActions, viewerHeader, viewerToolbar } from './toolbar';

export interface ViewerHost extends CaptureHost {
  /** Called with every note whenever the notes change in the page. */
  onNotesChange?(notes: Note[]): void;
}

export class Viewer implements ToolbarActions {
  readonly root: HTMLDivElement;
  readonly pane: IRPane;
  readonly search: SearchPanel;
  private readonly strip: Strip;
  private readonly passes: PassList;
  private readonly goto: GotoBox;
  private listShown = true;
  private readonly source: SourcePanel;
  private readonly notes: NotesPanel;
  private readonly info = h('div', { cls: 'air-passinfo', aria: { live: 'polite' } });
  private readonly syncInfo = h('div', { cls: 'air-syncinfo' });
  private readonly viewButtons = new Map<ViewMode, HTMLButtonElement>();
  private readonly stepper: Stepper;
  private readonly ahead: Ahead;
  private help: HTMLElement | null = null;
  private matcher: Matcher | null = null;
  private syncLens = false;

  constructor(
    readonly model: Model,
    private readonly host: ViewerHost
  ) {
    this.strip = new Strip(
      model,
      i => this.go(i),
      first => this.expand(first)
    );
    this.passes = new PassList(model, { onPick: i => this.go(i), onExpand: first => this.expand(first) });
    this.goto = new GotoBox(model, i => {
      this.go(i);
      this.root.focus();
    });
    this.pane = new IRPane({
      onLineNote: line => this.notes.openForm(line + 1),
      onJumpRow: row => this.pane.list.scrollToRow(row),
      fullText: (c, current) => fullLineText(model, c, current)
    });
    this.search = new SearchPanel(model, {
      onSearch: (m, counts) => {
        this.matcher = m;
        this.strip.setHits(counts);
        this.pane.redecorate(this.decorations());
      },
      onJump: i => this.go(i),
      onStep: dir => this.stepper.hit(dir, this.matcher),
      onCensus: () => this.passes.build()
    });
    this.source = new SourcePanel(model, () => this.afterSourcePick());
    this.notes = new NotesPanel(model, { onChange: () => this.notesChanged(), onJump: i => this.go(i) });
    this.stepper = new Stepper({
      model,
      pane: this.pane,
      search: this.search,
      go: i => this.go(i),
      decorations: () => this.decorations(),
      syncLensOn: () => this.syncLens || this.toggleSyncBox(),
      saySync: text => (this.syncInfo.textContent = text)
    });
    this.ahead = new Ahead(model);
    this.root = h('div', { cls: 'air-root', tabindex: 0, role: 'application', aria: { label: `IR timeline ${shownText(model.p.title)}` } });
    this.root.setAttribute('data-lm-suppress-shortcuts', 'true');
    bindKeys(this.root, () => this.keys());
    this.layout();
  }

  private layout(): void {
    const { p } = this.model;
    const main = h(
      'div',
      { cls: 'air-main' },
      this.passes.node,
      p.source ? this.source.node : null,
      h('div', { cls: 'air-center' }, this.info, this.syncInfo, this.pane.labels, this.pane.list.node, this.pane.hscroll)
    );
    const toolbar = viewerToolbar(this.model, this, this.viewButtons, this.goto.nodes());
    this.root.append(...viewerHeader(this.model, this, this.host), toolbar, this.strip.node, this.search.node, main, this.notes.node);
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

  refilter(change: () => void): void {
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

  toggleList(): void {
    this.listShown = !this.listShown;
    this.passes.node.classList.toggle('air-hidden', !this.listShown);
    const b = this.root.querySelector('.air-list-btn');
    b?.classList.toggle('air-on', this.listShown);
    b?.setAttribute('aria-pressed', String(this.listShown));
  }

  renorm(change: () => void): void {
    change();
    this.render(false);
  }

  setView(v: ViewMode): void {
    this.model.view = v;
    this.render(false);
  }

  /** The lens only decorates: the rows and the scroll position stay as they are. */
  setSync(on: boolean): void {
    this.syncLens = on;
    this.stepper.resetSync();
    this.pane.redecorate(this.decorations());
  }

  private render(stepped: boolean): void {
    const { p, cur, view } = this.model;
    this.stepper.reset();
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
    drawPassInfo(this.info, this.model, d.i, diff.hasPrev ? `+${diff.added} −${diff.removed}` : 'first state of this scope');
    this.search.update();
    this.source.update();
    this.notes.update();
    // The IR pane last: its rows are the bulk of the frame, laid out once after every change.
    const deco = this.decorations();
    const top = this.topRow(rows, deco, stepped);
    if (view !== 'ir') {
      const [before, after] = this.model.changeOf(cur);
      this.pane.setLabels(sideLabel(this.model, before), sideLabel(this.model, after), view === 'split');
    }
    if (view !== 'ir' && rows.length === 0) {
      const gap = diff.hasPrev ? 'no change against the previous state of this scope' : 'no previous state: this is the first dump of its scope';
      this.pane.show(new ArrayRows([{ left: null, right: null, gap }]), false, deco, 0);
    } else {
      this.pane.show(rows, view === 'split', deco, top);
    }
    this.ahead.schedule(deco.srcLines);
  }

  /** The row a pass opens at: a picked source line's ops, past a diff's first gap, or the change. */
  private topRow(rows: RowSet, deco: Decorations, stepped: boolean): number {
    return openingRow(this.model, rows, this.model.cur, deco.srcLines, stepped);
  }

  private decorations(): Decorations {
    const { deco, syncText } = decorationsOf(this.model, { matcher: this.matcher, syncLens: this.syncLens, source: this.source });
    this.syncInfo.textContent = syncText;
    return deco;
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
    this.redrawNotes();
    this.host.onNotesChange?.(this.model.notes);
  }

  private redrawNotes(): void {
    this.notes.update();
    this.strip.build();
    this.passes.build();
    this.pane.redecorate(this.decorations());
  }

  setNotes(raw: unknown): void {
    try {
      this.model.notes = checkNotes(raw, this.model.p.dumps);
    } catch (e) {
      console.warn('ascend-ir-lab: ignoring invalid notes', e);
      return;
    }
    this.redrawNotes();
  }

  toggleHelp(): void {
    if (this.help) {
      this.help.remove();
      this.help = null;
    } else {
      this.help = helpOverlay(() => this.toggleHelp());
      this.root.appendChild(this.help);
    }
    this.root.focus();
  }

  private keys(): Record<string, () => void> {
    return {
      n: () => this.go(this.model.step(1, true) ?? -1),
      p: () => this.go(this.model.step(-1, true) ?? -1),
      j: () => this.go(this.model.step(1, false) ?? -1),
      k: () => this.go(this.model.step(-1, false) ?? -1),
      '/': () => this.search.focus(),
      g: () => this.goto.open(),
      ']': () => this.stepper.change(1),
      '[': () => this.stepper.change(-1),
      f: () => this.stepper.sync(1, false),
      F: () => this.stepper.sync(-1, false),
      e: () => this.stepper.sync(1, true),
      E: () => this.stepper.sync(-1, true),
      l: () => this.toggleList(),
      d: () => this.setView(VIEW_MODES[(VIEW_MODES.indexOf(this.model.view) + 1) % VIEW_MODES.length]),
      s: () => this.toggleSyncBox(),
      '?': () => this.toggleHelp(),
      Escape: () => this.help && this.toggleHelp()
    };
  }

  /** Flip the sync lens box (and the lens with it); true once done. */
  private toggleSyncBox(): boolean {
    const box = Array.from(this.root.querySelectorAll<HTMLLabelElement>('.air-check')).find(l => l.textContent === 'sync lens');
    const input = box?.querySelector('input');
    if (input) {
      input.checked = !input.checked;
      this.setSync(input.checked);
    }
    return true;
  }
}
