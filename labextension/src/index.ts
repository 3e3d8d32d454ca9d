// JupyterLab mime renderer for the timeline payload: a saved notebook opened with no kernel
// is still navigable. The renderer executes nothing from the payload, so it is marked safe.

import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';
import { mountViewer, ViewerHandle } from './viewer/app';
import { MIME_TYPE } from './viewer/payload';

class TimelineRenderer extends Widget implements IRenderMime.IRenderer {
  private handle: ViewerHandle | null = null;

  constructor(private readonly mimeType: string) {
    super();
    this.addClass('air-lab-output');
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this.handle?.dispose();
    this.handle = mountViewer(this.node, model.data[this.mimeType]);
  }

  dispose(): void {
    this.handle?.dispose();
    this.handle = null;
    super.dispose();
  }
}

const rendererFactory: IRenderMime.IRendererFactory = {
  safe: true,
  mimeTypes: [MIME_TYPE],
  defaultRank: 50,
  createRenderer: options => new TimelineRenderer(options.mimeType)
};

const extension: IRenderMime.IExtension = {
  id: 'ascend-ir-lab:timeline',
  description: 'Pass-timeline viewer for ascend-ir-lab payloads',
  rendererFactory,
  rank: 50,
  dataType: 'json'
};

export default extension;
