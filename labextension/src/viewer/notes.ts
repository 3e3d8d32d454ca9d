// Notes on a pass or on a line of a pass: listed per pass, added in place, exported as JSON.

import { button, clear, h } from './dom';
import { type Model, passLabel } from './model';
import type { Note } from './payload';
import { appendVisible, shownText } from './text';

function visible(el: HTMLElement, text: string): HTMLElement {
  appendVisible(el, text);
  return el;
}

/** notes.json as exported: 1-based `ir_line`, the pass named (ascend_ir_lab.export.notes). */
export const NOTES_FORMAT = 'ascend-ir-lab/notes@2';

/** Where a note sits, as the list and the report say it: `#12 canonicalize, line 30`. */
export function noteWhere(n: Pick<Note, 'dump' | 'pass' | 'ir_line'>): string {
  return `#${n.dump} ${shownText(n.pass)}${n.ir_line === null ? '' : `, line ${n.ir_line}`}`;
}

export interface NoteEvents {
  onChange(): void;
  onJump(dump: number): void;
}

let counter = 0;

function newId(): string {
  counter++;
  return `n${Date.now().toString(36)}${counter}`;
}

export class NotesPanel {
  readonly node: HTMLDivElement;
  private readonly list: HTMLDivElement;
  private readonly form: HTMLDivElement;

  constructor(
    private readonly model: Model,
    private readonly events: NoteEvents
  ) {
    this.list = h('div', { cls: 'air-notes-list' });
    this.form = h('div', { cls: 'air-note-form' });
    this.node = h(
      'div',
      { cls: 'air-notes' },
      h(
        'div',
        { cls: 'air-row-tools' },
        h('span', { cls: 'air-panel-title' }, 'Notes'),
        button('+ Note', 'attach a note to this pass', () => this.openForm(null)),
        button('Export notes', 'download every note as JSON', () => this.exportNotes())
      ),
      this.form,
      this.list
    );
  }

  update(): void {
    clear(this.list);
    const mine = this.model.notesOf(this.model.cur);
    const others = this.model.notes.length - mine.length;
    for (const n of mine) {
      const del = button('×', 'delete this note', () => this.remove(n.id), 'air-note-del');
      this.list.appendChild(h('div', { cls: 'air-note' }, h('span', { cls: 'air-note-where' }, noteWhere(n)), visible(h('span', { cls: 'air-note-text' }), n.text), del));
    }
    if (others > 0) {
      const next = this.model.notes.find(n => n.dump !== this.model.cur);
      const go = button(`${others} note${others === 1 ? '' : 's'} on other passes`, 'go to the first', () => next && this.events.onJump(next.dump), 'air-link');
      this.list.appendChild(go);
    }
  }

  /** Show the note editor for the current pass, or for one (1-based) line of it. */
  openForm(line: number | null): void {
    clear(this.form);
    const text = h('textarea', { cls: 'air-note-input', placeholder: 'note text', aria: { label: 'note text' } });
    const save = button('Save note', 'save', () => {
      if (text.value.trim() !== '') {
        this.add(line, text.value.trim());
      }
      clear(this.form);
    });
    const cancel = button('Cancel', 'discard', () => clear(this.form));
    this.form.append(h('div', { cls: 'air-note-where' }, `Note on ${noteWhere({ dump: this.model.cur, pass: passLabel(this.model.p.dumps[this.model.cur]), ir_line: line })}`), text, save, cancel);
    text.focus();
  }

  private add(line: number | null, text: string): void {
    const d = this.model.p.dumps[this.model.cur];
    const note: Note = { id: newId(), dump: d.i, pass: passLabel(d), ir_line: line, text, created: new Date().toISOString() };
    this.model.notes = [...this.model.notes, note];
    this.events.onChange();
  }

  private remove(id: string): void {
    this.model.notes = this.model.notes.filter(n => n.id !== id);
    this.events.onChange();
  }

  private exportNotes(): void {
    const body = JSON.stringify({ format: NOTES_FORMAT, title: this.model.p.title, notes: this.model.notes }, null, 2);
    const url = URL.createObjectURL(new Blob([body], { type: 'application/json' }));
    const a = h('a', null);
    a.href = url;
    a.download = 'notes.json';
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }
}
