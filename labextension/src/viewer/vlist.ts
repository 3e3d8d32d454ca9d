// A virtualised list: fixed row height, only the rows in view (plus a margin) are in the DOM.
// Rows are keyed: a row whose key is unchanged keeps its node, untouched, so scrolling adds only
// the rows that come into view and stepping to a pass with the same lines redraws nothing.
// Nothing here reads layout while drawing (the height comes from a ResizeObserver), so a step
// costs one layout, not one forced per call.

import { h } from './dom';

export const ROW_HEIGHT = 18;
const MARGIN = 3;
const FALLBACK_HEIGHT = 520;

export class VirtualList {
  readonly node: HTMLDivElement;
  private readonly spacer: HTMLDivElement;
  private readonly win: HTMLDivElement;
  private count = 0;
  private render: (i: number) => HTMLElement = () => h('div', null);
  private keyOf: (i: number) => string = i => String(i);
  private first = -1;
  private last = -1;
  private frame = 0;
  private height = 0;
  /** Width of the list's content box, as the ResizeObserver last reported it (0: not yet). */
  width = 0;
  /** Called when the list's width changes. */
  onWidth: () => void = () => undefined;
  /** Called as a paint of the rows starts. */
  onPaint: () => void = () => undefined;
  /** Scroll offset last set or seen: read back from the node only on scroll events. */
  private top = 0;
  private shown = new Map<string, HTMLElement>();

  constructor(cls: string) {
    this.win = h('div', { cls: 'air-vwin' });
    this.spacer = h('div', { cls: 'air-vspace' }, this.win);
    this.node = h('div', { cls: `air-vlist ${cls}`, tabindex: -1 }, this.spacer);
    this.node.addEventListener('scroll', () => this.schedule());
    if (typeof ResizeObserver !== 'undefined') {
      new ResizeObserver(entries => {
        const box = entries[entries.length - 1].contentRect;
        const hgt = box.height;
        if (box.width > 0 && Math.abs(box.width - this.width) >= 1) {
          this.width = box.width;
          this.onWidth();
        }
        if (hgt > 0 && Math.abs(hgt - this.height) >= 1) {
          this.height = hgt;
          this.schedule();
        }
      }).observe(this.node);
    }
  }

  /** Replace the rows; scrolls so that row `top` is at the top of the view. */
  set(count: number, render: (i: number) => HTMLElement, keyOf: (i: number) => string, top = 0): void {
    this.count = count;
    this.render = render;
    this.keyOf = keyOf;
    this.spacer.style.height = `${count * ROW_HEIGHT}px`;
    this.scrollTo(Math.max(0, Math.min(top * ROW_HEIGHT, count * ROW_HEIGHT - this.viewHeight())));
  }

  /** Redraw the visible rows (state they depend on changed: their keys say which). */
  refresh(): void {
    this.paint(true);
  }

  scrollToRow(i: number): void {
    this.scrollTo(Math.max(0, i * ROW_HEIGHT - this.viewHeight() / 3));
  }

  /**
   * Draw the rows at offset px, then move the scrollbar there: the one layout that setting
   * scrollTop forces comes after every change of the step, so the frame has none left to do.
   */
  private scrollTo(px: number): void {
    const moved = px !== this.top;
    this.top = px;
    this.paint(true);
    if (moved) {
      this.node.scrollTop = px;
    }
  }

  private viewHeight(): number {
    if (this.height === 0) {
      this.height = this.node.clientHeight; // once, before the observer has reported
    }
    return this.height || FALLBACK_HEIGHT;
  }

  private schedule(): void {
    if (this.frame === 0) {
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        this.top = this.node.scrollTop;
        this.paint(false);
      });
    }
  }

  private paint(force: boolean): void {
    const first = Math.max(0, Math.floor(this.top / ROW_HEIGHT) - MARGIN);
    const last = Math.min(this.count, Math.ceil((this.top + this.viewHeight()) / ROW_HEIGHT) + MARGIN);
    if (!force && first === this.first && last === this.last) {
      return;
    }
    this.first = first;
    this.last = last;
    this.onPaint();
    const next = new Map<string, HTMLElement>();
    const order: HTMLElement[] = [];
    let kept = 0;
    for (let i = first; i < last; i++) {
      let key = this.keyOf(i);
      if (next.has(key)) {
        key = `${key}#${i}`; // keys are unique per row; this only guards against a bad keyOf
      }
      let el = this.shown.get(key);
      if (el === undefined) {
        el = this.render(i);
      } else {
        kept++;
      }
      next.set(key, el);
      order.push(el);
    }
    if (2 * kept < order.length) {
      // a step to other lines (a few rows kept, e.g. a diff's first gap): one replacement
      this.win.replaceChildren(...order);
    } else {
      for (const [key, el] of this.shown) {
        if (next.get(key) !== el) {
          el.remove();
        }
      }
      // Kept nodes are already in order; new ones go in between without moving the kept ones.
      let at = this.win.firstChild;
      for (const el of order) {
        if (el === at) {
          at = at.nextSibling;
        } else {
          this.win.insertBefore(el, at);
        }
      }
    }
    this.shown = next;
    this.win.style.transform = `translateY(${first * ROW_HEIGHT}px)`;
  }
}
