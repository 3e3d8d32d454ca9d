// How values are named in the views: as the compiler printed them, renumbered in order, or
// the canonical form (analysis.canonical's rules), which survives an inserted argument.

import { h } from './dom';
import type { NormFlags } from './normalize';

const CHOICES: Array<[string, string, Pick<NormFlags, 'canonSsa' | 'canonical'>]> = [
  ['', 'names as printed', { canonSsa: false, canonical: false }],
  ['ssa', 'SSA renumbered', { canonSsa: true, canonical: false }],
  ['canonical', 'canonical form', { canonSsa: false, canonical: true }]
];

/** The select of value naming; `onChange` gets the flags to merge into the normalisation. */
export function namesSelect(onChange: (flags: Pick<NormFlags, 'canonSsa' | 'canonical'>) => void): HTMLSelectElement {
  const sel = h(
    'select',
    {
      cls: 'air-names',
      title:
        'SSA renumbered: %values and ^blocks renamed in order of appearance. Canonical form: #map inlined, values named by what defines them, function arguments by type and rank (an inserted argument leaves the others alone), loop arguments and attributes sorted: the form two identical compiles agree on',
      aria: { label: 'value names' }
    },
    ...CHOICES.map(([value, label]) => h('option', { value }, label))
  );
  sel.addEventListener('change', () => onChange((CHOICES.find(c => c[0] === sel.value) ?? CHOICES[0])[2]));
  return sel;
}
