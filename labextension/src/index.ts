// JupyterLab mime renderer for the timeline payload: a saved notebook opened with no kernel
// is still navigable. The renderer executes nothing from the payload, so it is marked safe.
// It ranks above the widget view: when the output also carries a live TimelineWidget (same
// key in the output metadata), notes are synced with that widget's model.
// Notes made here are also written back into the output's data (IMimeModel.setData), so
// saving the notebook keeps them, kernel or not. JupyterLab then calls renderModel again with
// the same payload; that is recognised and only the notes are refreshed, keeping the place.

import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import type { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import { Widget } from '@lumino/widgets';
import { captureThrough, type LiveModel, whenModel } from './live';
import { h } from './viewer/dom';
import { mountAny, type ViewerHandle } from './viewer/mount';
import { noteWhere } from './viewer/notes';
import { isPacked } from './viewer/packed';
import { MIME_TYPE, type Note } from './viewer/payload';
import { shownText } from './viewer/text';

// ascend_ir_lab.export.html.static_html keeps its notes between these markers.
const NOTES_START = '<!--air-notes-->';
const NOTES_END = '<!--/air-notes-->';

/** The notes part of the static fallback (nbviewer, GitHub), built from text nodes. */
function notesFallback(notes: Note[]): string {
  if (notes.length === 0) {
    return '';
  }
  const items = notes.map(n => h('li', null, shownText(`pass ${noteWhere(n)}: ${n.text}`)));
  return h('details', null, h('summary', null, 'Notes'), h('ul', null, ...items)).outerHTML;
}

/** The static fallback with its notes redrawn; other HTML (or one without markers) as it is. */
export function withNotes(raw: unknown, notes: Note[]): unknown {
  // nbformat may hold the HTML as a list of lines
  const html = Array.isArray(raw) && raw.every(x => typeof x === 'string') ? raw.join('') : raw;
  if (typeof html !== 'string') {
    return raw;
  }
  const start = html.indexOf(NOTES_START);
  const end = html.indexOf(NOTES_END, start + NOTES_START.length);
  if (start < 0 || end < 0) {
    return raw;
  }
  return html.slice(0, start + NOTES_START.length) + notesFallback(notes) + html.slice(end);
}

type Obj = Record<string, unknown>;

/** What identifies the payload apart from its notes (cheap: no walk over the lines). */
function identity(raw: unknown): string {
  if (typeof raw !== 'object' || raw === null) {
    return String(raw);
  }
  const o = raw as Obj;
  if (isPacked(o)) {
    return `packed:${String(o.title)}:${String(o.data)}`;
  }
  const n = (k: string): number => (Array.isArray(o[k]) ? (o[k] as unknown[]).length : -1);
  return `plain:${String(o.title)}:${n('lines')}:${n('snapshots')}:${n('dumps')}`;
}

class TimelineRenderer extends Widget implements IRenderMime.IRenderer {
  private handle: ViewerHandle | null = null;
  private model: IRenderMime.IMimeModel | null = null;
  private shown = '';
  private live: LiveModel | null = null;
  private pushing = false;
  private readonly onLiveNotes = (): void => {
    if (!this.pushing && this.live) {
      this.handle?.setNotes(this.live.get('notes'));
    }
  };

  private readonly onLivePayload = (): void => {
    // a capture from the page: the kernel set the captured Run's payload; show it
    if (this.live && !this.isDisposed) {
      this.handle?.dispose();
      void mountAny(this.node, this.live.get('payload'), this.host).then(h => (this.handle = h));
    }
  };
  private readonly host = {
    onNotesChange: (notes: Note[]): void => this.push(notes),
    capture: (run: string, progress: (text: string) => void): Promise<void> | null => (this.live ? (captureThrough(this.live, run, progress)?.then(out => this.keepCaptured(out)) ?? null) : null)
  };

  constructor(private readonly mimeType: string) {
    super();
    this.addClass('air-lab-output');
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const raw = model.data[this.mimeType];
    const id = identity(raw);
    this.model = model;
    if (this.handle && id === this.shown) {
      // Same payload (typically our own setData after a note): refresh notes, keep the place.
      const notes = (raw as Obj).notes;
      if (!this.pushing) {
        this.handle.setNotes(Array.isArray(notes) ? notes : []);
      }
      return;
    }
    this.unlink();
    this.handle?.dispose();
    this.shown = id;
    this.handle = await mountAny(this.node, raw, this.host);
    const meta = model.metadata[this.mimeType] as { widget_key?: unknown } | undefined;
    if (meta && typeof meta.widget_key === 'string') {
      whenModel(meta.widget_key, m => this.link(m));
    }
  }

  private link(m: LiveModel): void {
    if (this.isDisposed) {
      return;
    }
    this.live = m;
    m.on('change:notes', this.onLiveNotes);
    m.on('change:payload', this.onLivePayload);
    this.onLiveNotes();
  }

  private unlink(): void {
    this.live?.off('change:notes', this.onLiveNotes);
    this.live?.off('change:payload', this.onLivePayload);
    this.live = null;
  }

  private push(notes: Note[]): void {
    const plain = notes.map(n => ({ ...n }));
    this.pushing = true;
    try {
      if (this.live) {
        this.live.set('notes', plain);
        this.live.save_changes();
      }
      this.save(plain);
    } finally {
      this.pushing = false;
    }
  }

  /**
   * The captured Run into the output's data (its packed payload and static HTML, as the kernel
   * sent them), so that the saved notebook shows it with no kernel. The view already shows it:
   * JupyterLab's call of renderModel that follows finds the same payload and keeps the place.
   */
  private keepCaptured(out: unknown): void {
    const model = this.model;
    const o = typeof out === 'object' && out !== null ? (out as Obj) : {};
    const payload = o[this.mimeType];
    const html = o['text/html'];
    if (!model || !isPacked(payload) || typeof html !== 'string') {
      console.warn('ascend-ir-lab: the captured Run came without its output; the saved notebook keeps the Run shown before');
      return;
    }
    this.shown = identity(payload);
    this.pushing = true;
    try {
      model.setData({ data: { ...model.data, [this.mimeType]: payload as Obj, 'text/html': html } as ReadonlyPartialJSONObject, metadata: model.metadata });
    } catch (e) {
      console.warn('ascend-ir-lab: the captured Run not saved into the output', e);
    } finally {
      this.pushing = false;
    }
  }

  /** Write the notes into the output's data, so that saving the notebook keeps them. */
  private save(notes: Note[]): void {
    const model = this.model;
    const raw = model?.data[this.mimeType];
    if (!model || typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      return;
    }
    const data: Obj = { ...model.data, [this.mimeType]: { ...(raw as Obj), notes } };
    if (data['text/html'] !== undefined) {
      data['text/html'] = withNotes(data['text/html'], notes as Note[]);
    }
    try {
      model.setData({ data: data as ReadonlyPartialJSONObject, metadata: model.metadata });
    } catch (e) {
      console.warn('ascend-ir-lab: notes not saved into the output', e);
    }
  }

  dispose(): void {
    this.unlink();
    this.handle?.dispose();
    this.handle = null;
    this.model = null;
    super.dispose();
  }
}

const rendererFactory: IRenderMime.IRendererFactory = {
  safe: true,
  mimeTypes: [MIME_TYPE],
  defaultRank: -20,
  createRenderer: options => new TimelineRenderer(options.mimeType)
};

const extension: IRenderMime.IExtension = {
  id: 'ascend-ir-lab:timeline',
  description: 'Pass-timeline viewer for ascend-ir-lab payloads',
  rendererFactory,
  rank: -20,
  dataType: 'json'
};

export default extension;
