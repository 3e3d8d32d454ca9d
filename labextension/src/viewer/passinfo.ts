// The line over the IR: which dump, stage, pass, phase and scope, what it changed, its time and
// the compiler messages it printed; and the labels of the two sides of a diff.

import { append, clear, h } from './dom';
import { formatMs, type Model, passLabel } from './model';
import type { Dump } from './payload';
import { appendVisible, shownText } from './text';

/** Redraw `box` for dump `i`; `change` says what the pass changed (`+3 −1`, or why not). */
export function drawPassInfo(box: HTMLElement, model: Model, i: number, change: string): void {
  const { p } = model;
  const d = p.dumps[i];
  const order = model.order();
  const pos = order.indexOf(i);
  clear(box);
  append(
    box,
    h('span', { cls: 'air-pos' }, `#${i} (${pos >= 0 ? pos + 1 : '–'}/${order.length})`),
    h('span', { cls: 'air-stagename' }, shownText(p.stages[d.stage].name)),
    h('span', { cls: 'air-passname', title: shownText(passLabel(d)) }, shownText(passLabel(d))),
    h('span', { cls: 'air-passfull' }, d.pass !== passLabel(d) ? `(${shownText(d.pass)})` : ''),
    h(
      'span',
      { cls: `air-phase air-phase-${d.phase}`, title: d.phase === 'before' && d.next >= 0 ? `IR printed before the pass; its output is #${d.next}, shown here` : '' },
      d.phase === 'before' && d.next >= 0 ? `before → #${d.next}` : d.phase
    ),
    nestedNote(model, i),
    h('span', { cls: 'air-scopename', title: shownText(d.scope) }, shownText(d.scope)),
    h('span', { cls: 'air-change' }, d.changed ? change : 'unchanged'),
    h('span', { cls: 'air-lines' }, `${p.snapshots[model.shown(i).snap].length} lines${d.truncated ? ' (truncated)' : ''}`),
    d.ms === null ? null : h('span', { cls: 'air-ms', title: 'time the tool reported for this pass' }, msText(model, d.stage, d.ms))
  );
  const msgs = model.messagesOf(i);
  if (msgs.length) {
    // a box of its own, a few lines high: a stage's many warnings never squeeze the IR
    const list = h('div', { cls: 'air-msgs', role: 'log', aria: { label: `${msgs.length} compiler messages` } });
    for (const m of msgs) {
      const msg = h('div', { cls: `air-msg air-msg-${m.level}` });
      appendVisible(msg, m.text);
      list.appendChild(msg);
    }
    box.appendChild(list);
  }
}

/** For a pass the inliner ran: whose change the IR up to the next dump is. */
function nestedNote(model: Model, i: number): HTMLElement | null {
  const inside = model.insideInliner(i);
  if (!inside) {
    return null;
  }
  const d = model.p.dumps[i];
  const text = `inside inline (#${inside.inliner}): the change up to #${inside.after} is inline's and ${passLabel(d)}'s together`;
  return h('span', { cls: 'air-nested', title: 'the inliner runs canonicalize on each function it visits; Before dumps show where each pass starts, not where the inliner ends' }, shownText(text));
}

function msText(model: Model, stage: number, ms: number): string {
  const total = model.stageMs.get(stage)?.total ?? 0;
  const share = total > 0 ? ` (${Math.round((100 * ms) / total)}% of ${model.p.stages[stage].name})` : '';
  return `${formatMs(ms)}${share}`;
}

/** The label of one side of a diff: dump, stage, pass, phase and scope (null: no such side). */
export function sideLabel(model: Model, d: Dump | null): string | null {
  if (d === null) {
    return null;
  }
  const st = model.p.stages[d.stage].name;
  return shownText(`#${d.i} ${st}:${passLabel(d)} · ${d.phase} · ${d.scope}`);
}
