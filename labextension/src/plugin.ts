// JupyterLab plugin: MLIR highlighting in CodeMirror 6 from the shared grammar, for MLIR files
// (.mlir, .bcmlir, .ttir, .ttgir, .ttadapter) and for `%%mlir_opt` / `%%mlir` notebook cells.

import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IEditorExtensionRegistry, IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { mlirMagicFactory } from './cellmagic';
import { MLIR_EXTENSIONS, MLIR_MIME, mlirSupport } from './mlir';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'ascend-ir-lab:mlir-language',
  description: 'MLIR syntax highlighting from the ascend-ir-lab grammar',
  autoStart: true,
  requires: [IEditorLanguageRegistry, IEditorExtensionRegistry],
  activate: (app: JupyterFrontEnd, languages: IEditorLanguageRegistry, extensions: IEditorExtensionRegistry) => {
    languages.addLanguage({
      name: 'MLIR', // shown in the status bar; lookups by name (```mlir fences) ignore case
      displayName: 'MLIR',
      mime: MLIR_MIME,
      extensions: MLIR_EXTENSIONS,
      load: async () => mlirSupport
    });
    app.docRegistry.addFileType({
      name: 'mlir',
      displayName: 'MLIR',
      extensions: MLIR_EXTENSIONS.map(e => `.${e}`),
      mimeTypes: [MLIR_MIME],
      fileFormat: 'text',
      contentType: 'file'
    });
    extensions.addExtension(mlirMagicFactory);
  }
};

export default plugin;
