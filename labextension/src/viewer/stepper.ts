// Stepping inside the shown pass: to the next or previous block of changes (] / [), sync op
// (f / F), checker finding (e / E) or search hit (Enter in the search box, on to the next pass
// that has one).

import type { Decorations, IRPane } from './irpane';
import type { Model } from './model';
import type { Matcher } from './search';
import type { SearchPanel } from './searchpanel';

/** What the stepper moves and reads. */
export interface StepperHost {
  readonly model: Model;
  readonly pane: IRPane;
  readonly search: SearchPanel;
  go(i: number): void;
  decorations(): Decorations;
  /** Turn the sync lens on (stepping to a sync op shows the lens). */
  syncLensOn(): void;
  /** A line for the sync lens's info box. */
  saySync(text: string): void;
}

export class Stepper {
  /** Row of the search hit last stepped to in the current pass (-1: none yet). */
  private hitRow = -1;
  /** Row of the change block last stepped to with ] / [ (-1: none yet). */
  private changeRow = -1;
  /** Row of the sync op or finding last stepped to (-1: none yet). */
  private syncRow = -1;

  constructor(private readonly v: StepperHost) {}

  /** A new pass or view: stepping starts again from the top. */
  reset(): void {
    this.hitRow = -1;
    this.changeRow = -1;
    this.syncRow = -1;
  }

  /** The sync lens was switched: sync stepping starts again. */
  resetSync(): void {
    this.syncRow = -1;
  }

  /** Next (1) or previous (-1) block of changed lines in the current view. */
  change(dir: 1 | -1): void {
    const row = this.v.pane.nextChange(this.changeRow, dir);
    if (row >= 0) {
      this.changeRow = row;
      this.v.pane.list.scrollToRow(row);
      this.v.pane.setHit(row);
    }
  }

  /** Next (1) or previous (-1) sync op, or checker finding, of the shown IR. */
  sync(dir: 1 | -1, findings: boolean): void {
    this.v.syncLensOn();
    const { sync, findings: found } = this.v.decorations();
    const row = this.v.pane.nextRowWhere(this.syncRow, dir, c => (findings ? (found?.has(c.line) ?? false) : (sync?.has(c.no) ?? false)));
    if (row < 0) {
      this.v.saySync(`sync lens: no ${findings ? 'finding' : 'sync op'} ${dir === 1 ? 'below' : 'above'} this one`);
      return;
    }
    this.syncRow = row;
    this.mark(row);
  }

  /** Next (or previous) matching line: in this pass, then in the next pass that has one. */
  hit(dir: 1 | -1, m: Matcher | null): void {
    if (!m) {
      return;
    }
    const { pane, model, search } = this.v;
    const row = pane.nextRowWhere(this.hitRow, dir, c => m.test(c.text));
    if (row >= 0) {
      this.showHit(row, m);
      return;
    }
    const order = model.order();
    const at = order.indexOf(model.cur);
    for (let k = 1; k <= order.length; k++) {
      const i = order[(((at + dir * k) % order.length) + order.length) % order.length];
      if (search.hitsIn(i) > 0) {
        this.v.go(i);
        const first = pane.nextRowWhere(dir === 1 ? -1 : pane.rowCount(), dir, c => m.test(c.text));
        if (first >= 0) {
          this.showHit(first, m);
        }
        return;
      }
    }
    search.say('no line matches in the shown passes');
  }

  private showHit(row: number, m: Matcher): void {
    const { pane, model, search } = this.v;
    this.hitRow = row;
    this.mark(row);
    const all = pane.countWhere(c => m.test(c.text));
    const nth = pane.countWhere(c => m.test(c.text), row + 1);
    search.say(`hit ${nth} of ${all} in #${model.cur} · ${model.order().filter(i => search.hitsIn(i) > 0).length} passes match`);
  }

  private mark(row: number): void {
    this.v.pane.setHit(row);
    this.v.pane.list.scrollToRow(row);
  }
}
