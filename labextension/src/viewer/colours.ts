// Colours of the IR pane's rows. Only the columns in view get token colours: the rest of a long
// line is one plain text node, so the line reads (and copies) whole at a few nodes' cost. And a
// frame spends a few ms at most on colours: rows drawn after that show their text (and word
// marks) plain at once and get their colours in the next frames. A step to another pass, which
// draws a view of new rows, colours none in its own frame: that frame paints the text, the
// changed lines and their word marks; the token spans (most of a row's style, layout and paint
// cost) come in the frames after.

import { type Columns, renderHighlighted, renderMarked } from './highlight';
import type { VirtualList } from './vlist';

/** Sideways scrolls move the coloured columns in steps of this many (a smaller one redraws nothing). */
const COL_STEP = 16;
/** Columns taken to be in view before the list has been measured. */
const COLS_UNMEASURED = 240;
/** Time a frame spends colouring rows. */
const BUDGET_MS = 4;
/** Time the frame of a step to another pass spends colouring rows. */
const STEP_BUDGET_MS = 0;

type Marks = () => Array<[number, number]> | null;

interface Pending {
  code: HTMLElement;
  text: string;
  marks: Marks;
}

export class RowColours {
  /** The columns drawn with colours (those in view, from a step before to a step past them). */
  cols: Columns = [0, COLS_UNMEASURED];
  /** Sideways scroll in px, as the last scroll event gave it (read there, never while drawing). */
  private hx = 0;
  /** Width of one character of the code font in px (0: not measured yet). */
  private chPx = 0;
  private readonly probe: HTMLSpanElement;
  private budgetEnd = 0;
  private pending: Pending[] = [];
  private frame = 0;
  /** The next paint of the list draws a step to another pass (set by stepped()). */
  private step = false;

  constructor(
    private readonly list: VirtualList,
    /** Width in px before the code of a line (gutter, sign). */
    private readonly gutterPx: number
  ) {
    this.probe = document.createElement('span');
    this.probe.className = 'air-probe';
    this.probe.setAttribute('aria-hidden', 'true');
    this.probe.textContent = '0'.repeat(32);
    list.node.appendChild(this.probe);
    list.onPaint = () => this.startFrame();
  }

  /** A fresh time budget: called as the list starts drawing rows. */
  startFrame(): void {
    this.budgetEnd = performance.now() + (this.step ? STEP_BUDGET_MS : BUDGET_MS);
    this.step = false;
  }

  /** The next paint shows another pass: it colours for the step's shorter budget. */
  stepped(): void {
    this.step = true;
  }

  /** Draw a line into its code cell: coloured within the budget, else plain until the next frame. */
  draw(code: HTMLElement, text: string, marks: Marks): void {
    if (performance.now() < this.budgetEnd) {
      renderHighlighted(code, text, marks() ?? undefined, this.cols);
      return;
    }
    renderMarked(code, text, marks());
    code.classList.add('air-plain');
    this.pending.push({ code, text, marks });
    this.schedule();
  }

  /**
   * At the start of the frame after the next one (a rAF callback queued from the next frame's),
   * so the next frame shows the text, and a key pressed meanwhile is handled first.
   */
  private schedule(): void {
    if (this.frame === 0) {
      this.frame = requestAnimationFrame(() => {
        this.frame = requestAnimationFrame(() => this.colourPending());
      });
    }
  }

  private colourPending(): void {
    this.frame = 0;
    this.startFrame();
    let k = 0;
    while (k < this.pending.length && performance.now() < this.budgetEnd) {
      const { code, text, marks } = this.pending[k++];
      if (code.isConnected) {
        code.textContent = '';
        renderHighlighted(code, text, marks() ?? undefined, this.cols);
        code.classList.remove('air-plain');
      }
    }
    this.pending = this.pending.slice(k);
    if (this.pending.length > 0) {
      this.schedule();
    }
  }

  /** The sideways scroll moved to `px`: true when the coloured columns moved (rows to redraw). */
  scrolled(px: number, split: boolean): boolean {
    this.hx = px;
    return this.recolumn(false, split);
  }

  /** The list was resized (layout is up to date here, so the font is measured now). */
  resized(split: boolean): boolean {
    this.chPx = this.probe.getBoundingClientRect().width / 32;
    return this.recolumn(true, split);
  }

  /** Columns for a view about to be drawn afresh. */
  reset(split: boolean): void {
    this.cols = this.columnsNow(split) ?? this.cols;
  }

  private columnsNow(split: boolean): Columns | null {
    if (this.list.width === 0 || this.chPx === 0) {
      return null;
    }
    const width = (split ? this.list.width / 2 : this.list.width) - this.gutterPx;
    const at = Math.floor(this.hx / this.chPx / COL_STEP) * COL_STEP;
    return [at, at + COL_STEP + Math.ceil(width / this.chPx)];
  }

  /** With `grow` (a resize), only columns that no longer cover the view are replaced. */
  private recolumn(grow: boolean, split: boolean): boolean {
    const next = this.columnsNow(split);
    if (next === null) {
      return false;
    }
    const covered = next[0] >= this.cols[0] && next[1] <= this.cols[1];
    if ((grow && !covered) || (!grow && (next[0] !== this.cols[0] || next[1] !== this.cols[1]))) {
      this.cols = next;
      return true;
    }
    return false;
  }
}
