// A virtualised list: fixed row height, only the rows in view (plus a margin) are in the DOM.

import { clear, h } from './dom';

export const ROW_HEIGHT = 18;
const MARGIN = 12;

export class VirtualList {
  readonly node: HTMLDivElement;
  private readonly spacer: HTMLDivElement;
  private readonly win: HTMLDivElement;
  private count = 0;
  private render: (i: number) => HTMLElement = () => h('div', null);
  private first = -1;
  private last = -1;
  private frame = 0;

  constructor(cls: string) {
    this.win = h('div', { cls: 'air-vwin' });
    this.spacer = h('div', { cls: 'air-vspace' }, this.win);
    this.node = h('div', { cls: `air-vlist ${cls}`, tabindex: -1 }, this.spacer);
    this.node.addEventListener('scroll', () => this.schedule());
  }

  /** Replace the rows; scrolls so that row `top` is at the top of the view. */
  set(count: number, render: (i: number) => HTMLElement, top = 0): void {
    this.count = count;
    this.render = render;
    this.spacer.style.height = `${count * ROW_HEIGHT}px`;
    this.node.scrollTop = Math.max(0, top) * ROW_HEIGHT;
    this.paint(true);
  }

  /** Redraw the visible rows (state they depend on changed). */
  refresh(): void {
    this.paint(true);
  }

  scrollToRow(i: number): void {
    const view = this.node.clientHeight || 400;
    this.node.scrollTop = Math.max(0, i * ROW_HEIGHT - view / 3);
    this.paint(true);
  }

  private schedule(): void {
    if (this.frame === 0) {
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        this.paint(false);
      });
    }
  }

  private paint(force: boolean): void {
    const view = this.node.clientHeight || 480;
    const top = this.node.scrollTop;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - MARGIN);
    const last = Math.min(this.count, Math.ceil((top + view) / ROW_HEIGHT) + MARGIN);
    if (!force && first === this.first && last === this.last) {
      return;
    }
    this.first = first;
    this.last = last;
    clear(this.win);
    this.win.style.transform = `translateY(${first * ROW_HEIGHT}px)`;
    const frag = document.createDocumentFragment();
    for (let i = first; i < last; i++) {
      frag.appendChild(this.render(i));
    }
    this.win.appendChild(frag);
  }
}
