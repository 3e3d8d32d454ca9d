// Work off the step path: after a step, the passes the next step can show (j / k / n / p) get
// their diffs, rows, word marks and tokens in idle time, so a step mostly draws.

import type { Model } from './model';
import { firstRowOf, type RowSet } from './rows';

/** Time left in an idle period below which no further pass is started (ms). */
const MIN_IDLE_MS = 3;

interface Deadline {
  timeRemaining(): number;
}

function whenIdle(run: (d: Deadline) => void): () => void {
  if (typeof requestIdleCallback === 'function') {
    const id = requestIdleCallback(run, { timeout: 500 });
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(() => {
    const end = performance.now() + 8;
    run({ timeRemaining: () => end - performance.now() });
  }, 16);
  return () => clearTimeout(id);
}

/**
 * The row a pass opens at when stepped to (or redrawn): a picked source line's ops, past a
 * diff's first gap, or a few rows above the first added line of a changed pass.
 */
export function openingRow(model: Model, rows: RowSet, i: number, picked: Set<number> | null, stepped: boolean): number {
  if (stepped && picked?.size) {
    return Math.max(0, firstRowOf(rows, picked) - 3);
  }
  if (model.view !== 'ir' && rows.length > 0 && rows.row(0).gap !== null) {
    return 1;
  }
  if (model.view === 'ir' && stepped && model.p.dumps[i].changed) {
    return Math.max(0, rows.firstAdded() - 3);
  }
  return 0;
}

export class Ahead {
  private cancel: () => void = () => undefined;

  constructor(private readonly model: Model) {}

  /** The current pass was drawn: compute its neighbours' next (what was pending is dropped). */
  schedule(picked: Set<number> | null): void {
    this.cancel();
    const { model } = this;
    const todo = [model.step(1, false), model.step(-1, false), model.step(1, true), model.step(-1, true)].filter((i): i is number => i !== null);
    const seen = new Set<number>();
    const run = (d: Deadline): void => {
      while (todo.length > 0 && d.timeRemaining() > MIN_IDLE_MS) {
        const i = todo.shift() as number;
        if (!seen.has(i)) {
          seen.add(i);
          const { diff, rows } = model.rowsOf(i);
          model.diffs.ahead(diff, model.view, openingRow(model, rows, i, picked, true));
        }
      }
      this.cancel = todo.length > 0 ? whenIdle(run) : () => undefined;
    };
    this.cancel = whenIdle(run);
  }
}
