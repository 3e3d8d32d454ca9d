// Keyboard map and the help overlay listing it.

import { h } from './dom';

export const KEYS: Array<[string, string]> = [
  ['n / p', 'next / previous changed pass'],
  ['j / k', 'next / previous pass'],
  ['/', 'search; Enter in the box steps to the next hit, Shift+Enter back'],
  ['g', 'go to a pass by name or #index'],
  ['l', 'show / hide the pass list'],
  ['d', 'toggle view: IR → unified diff → side by side'],
  ['] / [', 'next / previous change in the view'],
  ['s', 'toggle the sync lens (keeps the place)'],
  ['f / F', 'next / previous sync op (set_flag, wait_flag, pipe_barrier...)'],
  ['e / E', 'next / previous sync-checker finding'],
  ['?', 'show / hide this help'],
  ['Esc', 'close help, leave the search box']
];

export function helpOverlay(onClose: () => void): HTMLElement {
  const close = h('button', { cls: 'air-btn', type: 'button' }, 'Close');
  close.addEventListener('click', onClose);
  const rows = KEYS.map(([k, what]) => h('tr', null, h('td', null, h('kbd', null, k)), h('td', null, what)));
  return h(
    'div',
    { cls: 'air-help', role: 'dialog', aria: { label: 'keyboard shortcuts' } },
    h(
      'div',
      { cls: 'air-help-box' },
      h('div', { cls: 'air-help-title' }, 'Keyboard shortcuts'),
      h('table', null, h('tbody', null, ...rows)),
      h('p', null, 'Click a line number to attach a note to that line.'),
      close
    )
  );
}
