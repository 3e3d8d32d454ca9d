// JupyterLab mime renderer for the timeline payload: a saved notebook opened with no kernel
// is still navigable. The renderer executes nothing from the payload, so it is marked safe.
// It ranks above the widget view: when the output also carries a live TimelineWidget (same
// key in the output metadata), notes are synced with that widget's model.

import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';
import { LiveModel, whenModel } from './live';
import { mountViewer, ViewerHandle } from './viewer/app';
import { MIME_TYPE, Note } from './viewer/payload';

class TimelineRenderer extends Widget implements IRenderMime.IRenderer {
  private handle: ViewerHandle | null = null;
  private live: LiveModel | null = null;
  private pushing = false;
  private readonly onLiveNotes = (): void => {
    if (!this.pushing && this.live) {
      this.handle?.setNotes(this.live.get('notes'));
    }
  };

  constructor(private readonly mimeType: string) {
    super();
    this.addClass('air-lab-output');
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this.unlink();
    this.handle?.dispose();
    this.handle = mountViewer(this.node, model.data[this.mimeType], { onNotesChange: notes => this.push(notes) });
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
    this.onLiveNotes();
  }

  private unlink(): void {
    this.live?.off('change:notes', this.onLiveNotes);
    this.live = null;
  }

  private push(notes: Note[]): void {
    if (this.live) {
      this.pushing = true;
      this.live.set('notes', notes.map(n => ({ ...n })));
      this.live.save_changes();
      this.pushing = false;
    }
  }

  dispose(): void {
    this.unlink();
    this.handle?.dispose();
    this.handle = null;
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
