// anywidget host: the payload and the notes come from traitlets of
// ascend_ir_lab.notebook.widget.TimelineWidget; notes made here are synced back to Python.

import { type LiveModel as AnyModel, captureThrough, registerModel } from './live';
import { mountViewer } from './viewer/mount';
import type { Note } from './viewer/payload';

function initialize({ model }: { model: AnyModel }): void {
  const key = model.get('key');
  if (typeof key === 'string' && key !== '') {
    registerModel(key, model);
  }
}

function render({ model, el }: { model: AnyModel; el: HTMLElement }): () => void {
  let pushing = false;
  const host = {
    onNotesChange(notes: Note[]): void {
      pushing = true;
      model.set(
        'notes',
        notes.map(n => ({ ...n }))
      );
      model.save_changes();
      pushing = false;
    },
    capture(run: string, progress: (text: string) => void): Promise<void> | null {
      return captureThrough(model, run, progress)?.then(() => undefined) ?? null;
    }
  };
  let handle = mountViewer(el, model.get('payload'), host);
  const notes = model.get('notes');
  if (Array.isArray(notes) && notes.length) {
    handle.setNotes(notes);
  }
  const onPayload = (): void => {
    handle.dispose();
    handle = mountViewer(el, model.get('payload'), host);
  };
  const onNotes = (): void => {
    if (!pushing) {
      handle.setNotes(model.get('notes'));
    }
  };
  model.on('change:payload', onPayload);
  model.on('change:notes', onNotes);
  return () => {
    model.off('change:payload', onPayload);
    model.off('change:notes', onNotes);
    handle.dispose();
  };
}

export default { initialize, render };
