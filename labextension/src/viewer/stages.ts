// How each stage ended, as the pass list, the strip and the header show it: the failure-first
// header for a stage that failed (or was stopped), a muted line for the normal offline end of
// bishengir (every pass printed, no binary without CANN's hivmc).

import { button, h } from './dom';
import { type Model, passLabel } from './model';
import { appendVisible, shownText } from './text';

/**
 * Statuses a stage can carry in the payload, with the short text and the mark drawn for each:
 * the Run's own (runs/format.py STAGE_STATUS: timed-out, interrupted) and those the payload
 * derives. Any other is drawn as its own text.
 */
export const STAGE_STATUS: Record<string, { mark: string; text: string; failure: boolean }> = {
  failed: { mark: '✗', text: 'failed', failure: true },
  'timed-out': { mark: '⏱', text: 'timed out', failure: true },
  interrupted: { mark: '■', text: 'interrupted', failure: true },
  skipped: { mark: '–', text: 'skipped (not run)', failure: false },
  'no-binary': { mark: '○', text: 'no binary (needs CANN)', failure: false }
};

/**
 * The status of stage s: the payload's, or (from payloads that do not carry one) `failed`
 * for a non-zero exit or a failed pass, `no-binary` when the Run says its IR is complete.
 * null: the stage ended well.
 */
export function stageStatus(model: Model, s: number): string | null {
  const st = model.p.stages[s];
  if (st.status) {
    return st.status;
  }
  const failedPass = model.p.dumps.some(d => d.stage === s && d.phase === 'failed');
  if (!failedPass && (st.returncode ?? 0) === 0) {
    return null;
  }
  const run = model.p.meta.status as { code?: unknown } | undefined;
  return !failedPass && run?.code === 'ir-complete-no-binary' ? 'no-binary' : 'failed';
}

/** A small badge naming a stage's status (null when it ended well). */
export function statusBadge(model: Model, s: number): HTMLElement | null {
  const status = stageStatus(model, s);
  if (status === null) {
    return null;
  }
  const known = STAGE_STATUS[status];
  const text = known ? `${known.mark} ${known.text}` : shownText(status);
  const cls = `air-stage-status air-st-${known ? status : 'other'}${known?.failure ? ' air-st-bad' : ''}`;
  return h('span', { cls, title: `stage ${shownText(model.p.stages[s].name)}: ${text}` }, text);
}

/**
 * The header above the IR: failure first for each stage that failed or was stopped (its
 * failed pass or its last, the first error lines it printed, buttons to that pass and to the
 * IR before it); a muted line for a stage that ended at the binary step only.
 */
export function stageHeader(model: Model, go: (i: number) => void): HTMLElement[] {
  const failures: HTMLElement[] = [];
  const quiet: HTMLElement[] = [];
  model.p.stages.forEach((_, s) => {
    const status = stageStatus(model, s);
    if (status === 'no-binary') {
      quiet.push(noBinaryLine(model, s));
    } else if (status !== null && STAGE_STATUS[status]?.failure !== false) {
      failures.push(failureRow(model, s, status, go));
    }
  });
  const out: HTMLElement[] = [];
  if (failures.length) {
    out.push(h('div', { cls: 'air-failures' }, ...failures));
  }
  if (quiet.length) {
    out.push(h('div', { cls: 'air-stage-notes' }, ...quiet));
  }
  return out;
}

function noBinaryLine(model: Model, s: number): HTMLElement {
  const { p } = model;
  const n = p.dumps.filter(d => d.stage === s).length;
  const hivmc = p.messages.some(m => m.stage === s && m.text.includes('hivmc'));
  const why = hivmc ? 'hivmc not found (needs CANN)' : 'the tool made no binary';
  const line = `${p.stages[s].name}: binary step skipped: ${why}; all ${n} passes captured`;
  return h('div', { cls: 'air-stage-note', role: 'status', title: 'the normal end of an offline compile: every pass printed its IR' }, shownText(line));
}

function failureRow(model: Model, s: number, status: string, go: (i: number) => void): HTMLElement {
  const { p } = model;
  const st = p.stages[s];
  const dumps = p.dumps.filter(d => d.stage === s);
  const failedPass = dumps.find(d => d.phase === 'failed');
  const at = failedPass ?? dumps[dumps.length - 1];
  // bishengir checks for hivmc first: offline, that error precedes every real one
  const all = p.messages.filter(m => m.stage === s && m.level === 'error');
  const real = all.filter(m => !m.text.includes('hivmc'));
  const errors = (real.length ? real : all).slice(0, 3);
  const verb = status === 'failed' ? 'failed' : (STAGE_STATUS[status]?.text ?? status);
  const code = status === 'failed' && st.returncode ? ` (exit code ${st.returncode})` : ''; // a stopped tool's code is the signal
  const what = `✗ stage ${st.name} ${verb}${code}`;
  const row = h('div', { cls: 'air-failure', role: 'alert' }, h('span', { cls: 'air-failure-what' }, shownText(what)));
  if (at) {
    row.appendChild(button(`${failedPass ? 'failed pass' : 'last pass'} #${at.i} ${passLabel(at)}`, 'go to it (its diagnostics are shown with it)', () => go(at.i), 'air-link'));
    const before = model.changeOf(at.i)[0];
    if (before && before.i !== at.i) {
      row.appendChild(button(`IR before it (#${before.i})`, 'the state the pass started from', () => go(before.i), 'air-link'));
    }
  }
  for (const m of errors) {
    const line = h('div', { cls: 'air-failure-msg' });
    appendVisible(line, m.text.trim());
    row.appendChild(line);
  }
  return row;
}
