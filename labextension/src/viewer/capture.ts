// "Capture passes": a cheap record (no per-pass dumps) and the configs of an autotune sweep
// that have none are each a click away. With a kernel behind the page the click compiles
// them again (progress shown, then the viewer shows the captured Run); a saved notebook or an
// offline page says what command to run instead.

import { button, h } from './dom';
import type { Capture } from './payload';
import { shownText } from './text';

export interface CaptureHost {
  /**
   * Capture the passes of the Run named `run` ("" is this Run) through the kernel; `progress`
   * gets what it says. null: no kernel behind this page.
   */
  capture?(run: string, progress: (text: string) => void): Promise<void> | null;
}

function folderOf(c: Capture, run: string): string {
  const here = c.folder ?? 'RUN_FOLDER';
  return run === '' ? here : `${here.replace(/[\\/][^\\/]*$/, '') || '.'}/${run}`;
}

function short(text: string, n = 48): string {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

/** The bar above the IR, or null when every pass is here and no config lacks its passes. */
export function captureBar(c: Capture | null, host: CaptureHost): HTMLElement | null {
  if (!c) {
    return null;
  }
  const missing = c.configs.filter(k => !k.passesCaptured && k.run !== null);
  if (c.passesCaptured && missing.length === 0) {
    return null;
  }
  const status = h('div', { cls: 'air-capture-status', role: 'status', aria: { live: 'polite' } });
  const bar = h('div', { cls: 'air-capture', role: 'region', aria: { label: 'capture passes' } });
  const buttons: HTMLButtonElement[] = [];
  const start = (run: string, what: string): void => {
    const pending =
      host.capture?.(run, text => {
        last = text;
      }) ?? null;
    if (pending === null) {
      status.textContent = shownText(`No kernel behind this page: in a terminal, run  ascend-ir-lab capture-passes ${folderOf(c, run)}  (or Run(path).capture() in Python), then open the Run again.`);
      status.classList.add('air-capture-how');
      return;
    }
    let last = '';
    const t0 = performance.now();
    const tick = (): void => {
      status.textContent = shownText(`capturing the passes of ${what} … ${Math.round((performance.now() - t0) / 1000)} s${last ? ` · ${last}` : ''}`);
    };
    tick();
    const timer = setInterval(tick, 1000);
    for (const b of buttons) {
      b.disabled = true;
    }
    pending.then(
      () => {
        clearInterval(timer);
        status.textContent = shownText(`passes of ${what} captured`);
      },
      (e: unknown) => {
        clearInterval(timer);
        status.textContent = shownText(`✗ ${e instanceof Error ? e.message : String(e)}`);
        for (const b of buttons) {
          b.disabled = false;
        }
      }
    );
  };
  if (!c.passesCaptured) {
    bar.appendChild(h('span', null, 'This Run is a cheap record: no per-pass dumps.'));
    buttons.push(button('capture passes', 'compile it again with every pass printed', () => start('', 'this Run'), 'air-capture-btn'));
  }
  if (c.configs.length) {
    const have = c.configs.filter(k => k.passesCaptured).map(k => `#${k.index ?? '?'}`);
    bar.appendChild(h('span', null, `autotune sweep: ${c.configs.length} configs${have.length ? `; passes of ${have.join(', ')}` : ''}`));
    for (const k of missing) {
      const what = `config #${k.index ?? '?'} ${k.config}`;
      const b = button(
        `capture passes: #${k.index ?? '?'} ${short(shownText(k.config))}`,
        shownText(`${what} (${k.status || 'record only'}; Run ${k.run})`),
        () => start(k.run as string, what),
        'air-capture-btn'
      );
      b.dataset.run = k.run as string;
      buttons.push(b);
    }
  }
  bar.append(...buttons, status);
  return bar;
}
