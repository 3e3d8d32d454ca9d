// JupyterLab plugin: MLIR highlighting in CodeMirror 6 from the shared grammar, for .mlir
// (and .ttir/.ttgir) files.

import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { LanguageSupport, StreamLanguage, StringStream } from '@codemirror/language';
import { RULES } from './viewer/highlight';

// Grammar rule name -> CodeMirror legacy token style.
const STYLE: Record<string, string | null> = {
  comment: 'comment',
  string: 'string',
  space: null,
  block: 'labelName',
  ssa: 'variable',
  symbol: 'def',
  'attr-alias': 'atom',
  'type-alias': 'type',
  hex: 'number',
  float: 'number',
  integer: 'number',
  'builtin-type': 'type',
  keyword: 'keyword',
  op: 'builtin',
  identifier: null,
  arrow: 'operator',
  punctuation: 'punctuation',
  other: null
};

const ANCHORED = new RegExp(`^(?:${RULES.map(r => `(${r.regex})`).join('|')})`);

export const mlirStream = StreamLanguage.define<null>({
  name: 'mlir',
  startState: () => null,
  token(stream: StringStream): string | null {
    const m = stream.match(ANCHORED) as RegExpMatchArray | null;
    if (!m) {
      stream.next();
      return null;
    }
    let g = 1;
    while (m[g] === undefined) {
      g++;
    }
    return STYLE[RULES[g - 1].name] ?? null;
  }
});

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'ascend-ir-lab:mlir-language',
  description: 'MLIR syntax highlighting from the ascend-ir-lab grammar',
  autoStart: true,
  requires: [IEditorLanguageRegistry],
  activate: (app: JupyterFrontEnd, languages: IEditorLanguageRegistry) => {
    languages.addLanguage({
      name: 'mlir',
      displayName: 'MLIR',
      mime: 'text/x-mlir',
      extensions: ['mlir', 'ttir', 'ttgir', 'ttadapter'],
      load: async () => new LanguageSupport(mlirStream)
    });
    app.docRegistry.addFileType({
      name: 'mlir',
      displayName: 'MLIR',
      extensions: ['.mlir', '.ttir', '.ttgir', '.ttadapter'],
      mimeTypes: ['text/x-mlir'],
      fileFormat: 'text',
      contentType: 'file'
    });
  }
};

export default plugin;
