// Bundles the one viewer three ways: anywidget ESM and offline-HTML IIFE (committed into the
// Python package), and lib/*.js for `jupyter labextension build`.
import * as esbuild from 'esbuild';
import { copyFileSync } from 'node:fs';

const common = { bundle: true, target: 'es2020', legalComments: 'none', logLevel: 'warning', charset: 'utf8' };
const pkgStatic = '../ascend_ir_lab/static';

await esbuild.build({ ...common, entryPoints: ['src/anywidget.ts'], format: 'esm', minify: true, outfile: `${pkgStatic}/viewer.js` });
await esbuild.build({ ...common, entryPoints: ['src/standalone.ts'], format: 'iife', minify: true, outfile: `${pkgStatic}/viewer-standalone.js` });
copyFileSync('style/viewer.css', `${pkgStatic}/viewer.css`);
await esbuild.build({
  ...common,
  entryPoints: { index: 'src/index.ts', plugin: 'src/plugin.ts' },
  format: 'esm',
  outdir: 'lib',
  external: ['@jupyterlab/*', '@lumino/*', '@codemirror/*', '@lezer/*']
});
