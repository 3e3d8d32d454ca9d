// MLIR highlighting for `%%mlir_opt` / `%%mlir` code cells. The cell's mimeType is left to
// JupyterLab (it resets it on every kernel change): instead each cell editor carries a
// compartment that, while the first line is such a magic, holds the MLIR language at the
// highest precedence, which wins over the kernel language JupyterLab configures. Emptying the
// compartment hands the cell back to the kernel language. The switch happens inside the
// transaction that edits the first line, so no render ever shows the stale language.

import { Compartment, EditorState, type Extension, Prec, Text } from '@codemirror/state';
import { EditorExtensionRegistry, type IEditorExtensionFactory } from '@jupyterlab/codemirror';
import { mlirSupport } from './mlir';

const MAGIC_LINE = /^%%mlir(?:_opt)?(?:\s|$)/;

const cellLanguage = new Compartment();
const MLIR_FIRST = Prec.highest(mlirSupport);

/** True when the first line of the cell is `%%mlir_opt ...` or `%%mlir ...`. */
export function isMlirMagic(doc: Text): boolean {
  return MAGIC_LINE.test(doc.line(1).text);
}

/** The editor extension for a cell whose text starts as `source`. */
export function mlirMagicExtension(source: string): Extension {
  return [
    cellLanguage.of(isMlirMagic(Text.of(source.split('\n', 1))) ? MLIR_FIRST : []),
    EditorState.transactionExtender.of(tr => {
      if (!tr.docChanged) {
        return null;
      }
      const want = isMlirMagic(tr.newDoc);
      const has = cellLanguage.get(tr.startState) === MLIR_FIRST;
      return want === has ? null : { effects: cellLanguage.reconfigure(want ? MLIR_FIRST : []) };
    })
  ];
}

/** For IEditorExtensionRegistry: active in code cells (notebook and console) only. */
export const mlirMagicFactory: IEditorExtensionFactory = {
  name: 'ascend-ir-lab:mlir-cell-magic',
  factory: ({ model }) => ((model as { type?: unknown }).type === 'code' ? EditorExtensionRegistry.createImmutableExtension(mlirMagicExtension(model.sharedModel.getSource())) : null)
};
