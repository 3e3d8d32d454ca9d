// Meeting point between a live anywidget model and the JupyterLab mime renderer. When the
// kernel is alive, the widget's model registers here under its key; the mime renderer (which
// JupyterLab prefers, so a saved notebook still renders with no kernel) then syncs notes with it.

export interface LiveModel {
  get(name: string): unknown;
  set(name: string, value: unknown): void;
  save_changes(): void;
  on(event: string, cb: (...args: never[]) => void): void;
  off(event: string, cb: (...args: never[]) => void): void;
  send?(content: unknown): void;
}

type Msg = { kind?: unknown; text?: unknown; output?: unknown };

/**
 * Ask the kernel side of the widget (notebook.widget.TimelineWidget) to capture the passes of
 * the Run named `run`; resolves once it has set the new payload, with the output data it sent
 * for the notebook to save (the packed payload and its static HTML; untrusted, unchecked here),
 * rejects with its one line.
 */
export function captureThrough(model: LiveModel, run: string, progress: (text: string) => void): Promise<unknown> | null {
  const send = model.send;
  if (typeof send !== 'function') {
    return null;
  }
  return new Promise<unknown>((resolve, reject) => {
    const onMsg = (msg: Msg): void => {
      const text = typeof msg?.text === 'string' ? msg.text : '';
      if (msg?.kind === 'capture-progress') {
        progress(text);
      } else if (msg?.kind === 'capture-done' || msg?.kind === 'capture-error') {
        model.off('msg:custom', onMsg);
        if (msg.kind === 'capture-done') {
          resolve(msg.output);
        } else {
          reject(new Error(text || 'capture failed'));
        }
      }
    };
    model.on('msg:custom', onMsg);
    send.call(model, { kind: 'capture', run });
  });
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
