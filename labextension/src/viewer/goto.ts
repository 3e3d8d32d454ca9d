// The go-to box of the toolbar (g): a pass by index (`12`, `#12`) or by name, fuzzily.

import { h } from './dom';
import type { Model } from './model';
import { shownText } from './text';

export class GotoBox {
  readonly box: HTMLInputElement;
  private readonly info = h('span', { cls: 'air-goto-info', aria: { live: 'polite' } });

  /** `onGo` gets the dump the query names; the box then clears itself. */
  constructor(
    private readonly model: Model,
    private readonly onGo: (i: number) => void
  ) {
    this.box = h('input', { cls: 'air-goto', placeholder: 'go to pass (g)', aria: { label: 'go to pass by name or index' } });
    this.box.addEventListener('keydown', ev => this.onKey(ev));
  }

  /** The box and its info line, for the toolbar. */
  nodes(): HTMLElement[] {
    return [this.box, this.info];
  }

  open(): void {
    this.box.value = '';
    this.info.textContent = '';
    this.box.focus();
  }

  private onKey(ev: KeyboardEvent): void {
    if (ev.key !== 'Enter') {
      return;
    }
    ev.preventDefault();
    const target = this.model.findPass(this.box.value);
    if (target === null) {
      this.info.textContent = `no pass matches “${shownText(this.box.value)}”`;
      return;
    }
    this.info.textContent = '';
    this.box.value = '';
    this.onGo(target);
  }
}
