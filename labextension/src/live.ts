// Meeting point between a live anywidget model and the JupyterLab mime renderer. When the
// kernel is alive, the widget's model registers here under its key; the mime renderer (which
// JupyterLab prefers, so a saved notebook still renders with no kernel) then syncs notes with it.

export interface LiveModel {
  get(name: string): unknown;
  set(name: string, value: unknown): void;
  save_changes(): void;
  on(event: string, cb: () => void): void;
  off(event: string, cb: () => void): void;
}

interface Registry {
  models: Map<string, LiveModel>;
  waiters: Map<string, Array<(m: LiveModel) => void>>;
}

const KEY = '__ascendIrLabLive';

function registry(): Registry {
  const g = globalThis as unknown as Record<string, Registry | undefined>;
  let r = g[KEY];
  if (!r) {
    r = { models: new Map(), waiters: new Map() };
    g[KEY] = r;
  }
  return r;
}

export function registerModel(key: string, model: LiveModel): void {
  const r = registry();
  r.models.set(key, model);
  for (const cb of r.waiters.get(key) ?? []) {
    cb(model);
  }
  r.waiters.delete(key);
}

/** Call cb with the live model of key now or when it appears. */
export function whenModel(key: string, cb: (m: LiveModel) => void): void {
  const r = registry();
  const m = r.models.get(key);
  if (m) {
    cb(m);
  } else {
    r.waiters.set(key, [...(r.waiters.get(key) ?? []), cb]);
  }
}
