// MLIR for CodeMirror 6 from the shared grammar (ascend_ir_lab/static/mlir-grammar.json), the
// same rules the Pygments lexer and the viewer use. Each token carries two tags: a standard one,
// coloured by JupyterLab's theme, and one per grammar rule, drawn as the class `mlir-<rule>`
// (mlir-op, mlir-ssa, mlir-attr-alias...) so that themes and tests can name what a span is.

import { HighlightStyle, LanguageSupport, StreamLanguage, type StringStream, syntaxHighlighting } from '@codemirror/language';
import { Tag, tags as t, tagHighlighter } from '@lezer/highlight';
import { RULES } from './viewer/highlight';

/** MIME type of MLIR text in JupyterLab's language registry and document registry. */
export const MLIR_MIME = 'text/x-mlir';

/** File extensions opened as MLIR (`.llir.mlir` and `.bcmlir` dumps included). */
export const MLIR_EXTENSIONS = ['mlir', 'bcmlir', 'ttir', 'ttgir', 'ttadapter'];

// Grammar rule name -> the standard tag JupyterLab's theme colours (null: plain text).
const STANDARD: Record<string, Tag | null> = {
  comment: t.comment,
  string: t.string,
  space: null,
  block: t.labelName,
  ssa: t.special(t.variableName),
  symbol: t.definition(t.variableName),
  'attr-alias': t.atom,
  'type-alias': t.typeName,
  hex: t.number,
  float: t.number,
  integer: t.number,
  'builtin-type': t.typeName,
  keyword: t.keyword,
  op: t.standard(t.variableName),
  identifier: null,
  arrow: t.operator,
  punctuation: t.punctuation,
  other: null
};

// The IPython cell-magic line of a `%%mlir_opt` cell: not MLIR (no MLIR line starts with %%).
const MAGIC = 'magic';

const ruleTags = new Map<string, Tag>([[MAGIC, Tag.define()], ...RULES.map(r => [r.name, Tag.define()] as [string, Tag])]);

function tagOf(name: string): Tag {
  const tag = ruleTags.get(name);
  if (tag === undefined) {
    throw new Error(`mlir grammar: no tag for rule ${name}`);
  }
  return tag;
}

const tokenTable: Record<string, Tag[]> = { [MAGIC]: [t.meta, tagOf(MAGIC)] };
for (const r of RULES) {
  const std = STANDARD[r.name];
  tokenTable[r.name] = std ? [std, tagOf(r.name)] : [tagOf(r.name)];
}

const ANCHORED = new RegExp(`^(?:${RULES.map(r => `(${r.regex})`).join('|')})`);

export const mlirStream = StreamLanguage.define<null>({
  name: 'mlir',
  startState: () => null,
  token(stream: StringStream): string | null {
    if (stream.sol() && stream.match(/^%%.*/)) {
      return MAGIC;
    }
    const m = stream.match(ANCHORED) as RegExpMatchArray | null;
    if (!m) {
      stream.next();
      return null;
    }
    let g = 1;
    while (m[g] === undefined) {
      g++;
    }
    const name = RULES[g - 1].name;
    return name === 'space' ? null : name;
  },
  tokenTable
});

const ruleClasses = tagHighlighter([...ruleTags].map(([name, tag]) => ({ tag, class: `mlir-${name}` })));

// JupyterLab's theme leaves type names uncoloured; give them the theme's variable-3 colour.
const typeColour = HighlightStyle.define([{ tag: t.typeName, color: 'var(--jp-mirror-editor-variable-3-color)' }]);

/** MLIR language support: the stream language plus the rule classes and the type colour. */
export const mlirSupport = new LanguageSupport(mlirStream, [syntaxHighlighting(ruleClasses), syntaxHighlighting(typeColour)]);
