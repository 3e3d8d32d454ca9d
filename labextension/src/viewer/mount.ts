// Mounting the viewer in a host's element: the payload validated first (a bad one gets an error
// panel, never a half-drawn view), a comparison of two Runs drawn by its own view, a packed
// payload unpacked with the browser's DecompressionStream.

import { Viewer, type ViewerHost } from './app';
import { isComparison, validateComparison } from './comparepayload';
import { CompareView } from './compareview';
import { clear, h } from './dom';
import { Model } from './model';
import { isPacked, unpackPayload } from './packed';
import { PayloadError, validatePayload } from './payload';

export type { ViewerHost } from './app';

export interface ViewerHandle {
  setNotes(notes: unknown): void;
  dispose(): void;
}

function errorPanel(message: string): HTMLElement {
  return h(
    'div',
    { cls: 'air-root air-error', role: 'alert' },
    h('div', { cls: 'air-error-title' }, 'This IR timeline cannot be shown'),
    h('div', { cls: 'air-error-text' }, message),
    h('div', { cls: 'air-error-hint' }, 'The payload failed validation; regenerate it with ascend-ir-lab of a matching version.')
  );
}

function failed(el: HTMLElement, e: unknown): ViewerHandle {
  clear(el);
  el.appendChild(errorPanel(e instanceof PayloadError ? e.message : `unexpected error: ${String(e)}`));
  return { setNotes: () => undefined, dispose: () => clear(el) };
}

/** Validate the payload and draw the viewer into el (or an error panel if it is invalid). */
export function mountViewer(el: HTMLElement, raw: unknown, host: ViewerHost = {}): ViewerHandle {
  clear(el);
  if (isComparison(raw)) {
    return mountComparison(el, raw);
  }
  let viewer: Viewer;
  try {
    viewer = new Viewer(new Model(validatePayload(raw)), host);
  } catch (e) {
    return failed(el, e);
  }
  el.appendChild(viewer.root);
  viewer.start();
  return { setNotes: n => viewer.setNotes(n), dispose: () => clear(el) };
}

/** The view of two Runs side by side (a comparison payload); notes belong to each Run. */
function mountComparison(el: HTMLElement, raw: unknown): ViewerHandle {
  let view: CompareView;
  try {
    view = new CompareView(validateComparison(raw));
  } catch (e) {
    return failed(el, e);
  }
  el.appendChild(view.root);
  view.start();
  return { setNotes: () => undefined, dispose: () => clear(el) };
}

/**
 * mountViewer for a payload that may be packed (gzip+base64): unpacked first with the browser's
 * DecompressionStream; a plain payload mounts at once. Bad packed data gives the error panel.
 */
export async function mountAny(el: HTMLElement, raw: unknown, host: ViewerHost = {}): Promise<ViewerHandle> {
  if (!isPacked(raw)) {
    return mountViewer(el, raw, host);
  }
  let plain: unknown;
  try {
    plain = await unpackPayload(raw);
  } catch (e) {
    return failed(el, e);
  }
  return mountViewer(el, plain, host);
}
