// The viewer's header (title, target, counts, help; the stages, capture bar and warnings) and toolbar (pass list, scope, filter, go to,
// view buttons, normalisation and the sync lens), on one row at 1280 px.

import { type CaptureHost, captureBar } from './capture';
import { button, checkbox, h } from './dom';
import { type Model, VIEW_MODES, type ViewMode } from './model';
import { namesSelect } from './names';
import { stageHeader } from './stages';
import { shownText } from './text';

export const VIEW_NAMES: Record<ViewMode, string> = { ir: 'IR', unified: 'Unified diff', split: 'Side by side' };

/** What the toolbar's controls do. */
export interface ToolbarActions {
  go(i: number): void;
  toggleList(): void;
  /** A filter of the shown passes changed (the change is applied by `change`). */
  refilter(change: () => void): void;
  /** The normalisation of the shown IR changed. */
  renorm(change: () => void): void;
  setView(v: ViewMode): void;
  setSync(on: boolean): void;
  toggleHelp(): void;
}

/** What goes above the toolbar: the header, the stages (and the capture bar), the warnings. */
export function viewerHeader(model: Model, act: ToolbarActions, host: CaptureHost): HTMLElement[] {
  const { p } = model;
  const meta = [p.meta.target, p.meta.toolchain].filter(x => typeof x === 'string').join(' · ');
  const header = h(
    'div',
    { cls: 'air-header' },
    h('span', { cls: 'air-title', title: shownText(p.title) }, shownText(p.title)),
    h('span', { cls: 'air-meta' }, `${meta}${meta ? ' · ' : ''}${p.dumps.length} dumps, ${p.stages.length} stages`),
    button('?', 'keyboard shortcuts (?)', () => act.toggleHelp(), 'air-help-btn')
  );
  const out = [header, ...stageHeader(model, i => act.go(i))];
  const capture = captureBar(p.capture, host);
  if (capture) {
    out.push(capture);
  }
  if (p.warnings.length) {
    out.push(h('div', { cls: 'air-warnings' }, ...p.warnings.map(w => h('div', null, `⚠ ${shownText(w)}`))));
  }
  return out;
}

/** The toolbar; `views` receives the view buttons, `goto` is the go-to box and its info line. */
export function viewerToolbar(model: Model, act: ToolbarActions, views: Map<ViewMode, HTMLButtonElement>, goto: HTMLElement[]): HTMLElement {
  const scope = h('select', { cls: 'air-scope', aria: { label: 'scope' } }, h('option', { value: '' }, 'all scopes'), ...model.scopes().map(s => h('option', { value: s }, s)));
  scope.addEventListener('change', () => act.refilter(() => (model.scope = scope.value)));
  const filter = h('input', { cls: 'air-filter', type: 'search', placeholder: 'filter (fuzzy)', aria: { label: 'pass filter (fuzzy)' } });
  filter.addEventListener('input', () => act.refilter(() => (model.filter = filter.value)));
  for (const v of VIEW_MODES) {
    views.set(
      v,
      button(VIEW_NAMES[v], `view: ${VIEW_NAMES[v]} (d)`, () => act.setView(v), 'air-view')
    );
  }
  const listButton = button('☰ Passes', 'show / hide the pass list (l)', () => act.toggleList(), 'air-list-btn air-on');
  listButton.setAttribute('aria-pressed', 'true');
  return h(
    'div',
    { cls: 'air-toolbar', role: 'toolbar', aria: { label: 'view options' } },
    listButton,
    scope,
    filter,
    ...goto,
    checkbox('hide unchanged', 'hide passes that changed nothing', false, on => act.refilter(() => (model.hideUnchanged = on))),
    checkbox('collapse cse', 'collapse consecutive canonicalize/cse/dce passes into one entry', false, on => act.refilter(() => (model.collapseCleanup = on))),
    h('span', { cls: 'air-views' }, ...views.values()),
    checkbox('no locs', 'drop #loc lines and loc(...) in every view', false, on => act.renorm(() => (model.norm = { ...model.norm, dropLoc: on }))),
    checkbox('diff locs', 'show loc(...) in the diff views too (hidden there by default; hover a line to see it)', false, on => act.renorm(() => (model.diffLocs = on))),
    namesSelect(names => act.renorm(() => (model.norm = { ...model.norm, ...names }))),
    checkbox('sync lens', 'highlight hivm sync ops, pair set_flag/wait_flag (s)', false, on => act.setSync(on))
  );
}
