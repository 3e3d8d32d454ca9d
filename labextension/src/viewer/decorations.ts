// What the IR pane marks on the current pass: search hits, the sync lens (ops, flag pairs and
// the checker's findings), the lines of a picked source line, and notes.

import type { Decorations } from './irpane';
import type { Model } from './model';
import type { Dump, SyncFinding } from './payload';
import type { Cell } from './rows';
import type { Matcher } from './search';
import type { SourcePanel } from './sourcepanel';
import { syncMarks, syncSummary } from './sync';
import { shownText } from './text';

export interface DecorationState {
  matcher: Matcher | null;
  syncLens: boolean;
  source: SourcePanel;
}

/** The decorations of the current pass, and the sync lens's summary line ('' with the lens off). */
export function decorationsOf(model: Model, state: DecorationState): { deco: Decorations; syncText: string } {
  const d = model.p.dumps[model.cur];
  const shown = model.shown();
  const noted = new Map<number, string>();
  for (const n of model.notesOf(d.i)) {
    if (n.ir_line !== null) {
      noted.set(n.ir_line - 1, n.text);
    }
  }
  let sync = null;
  let syncText = '';
  if (state.syncLens) {
    const v = model.snapView(shown.snap);
    sync = syncMarks(Array.from(v.ids, id => model.table.text(id)));
    const n = model.p.syncCheck.get(shown.i)?.length ?? 0;
    syncText = `sync lens: ${syncSummary(sync)}${n ? ` · ${n} checker finding${n === 1 ? '' : 's'} (e / E)` : ''} · f / F: next / previous sync op`;
  }
  const sel = state.source.selected;
  const srcLines = sel === null ? null : state.source.irLinesOf(shown.snap, sel);
  const findings = state.syncLens ? findingsOf(model, shown) : null;
  return { deco: { matcher: state.matcher, sync, srcLines, noted, findings }, syncText };
}

/** The sync checker's findings on the shown dump, by original line index. */
function findingsOf(model: Model, d: Dump): Map<number, SyncFinding[]> | null {
  const list = model.p.syncCheck.get(d.i);
  if (!list || list.length === 0) {
    return null;
  }
  const out = new Map<number, SyncFinding[]>();
  for (const f of list) {
    out.set(f.line - 1, [...(out.get(f.line - 1) ?? []), f]);
  }
  return out;
}

/** A row's tooltip where the view hides its locations: the line as the IR has it (else null). */
export function fullLineText(model: Model, c: Cell, current: boolean): string | null {
  if (!model.locsHidden()) {
    return null;
  }
  const [before, after] = model.changeOf(model.cur);
  const d = current ? after : before;
  const snap = d ? model.p.snapshots[d.snap] : null;
  const id = snap ? snap[c.line] : undefined;
  return id === undefined ? null : shownText(model.table.text(id).trim());
}
