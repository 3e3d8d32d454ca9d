// Bundles the one viewer three ways: anywidget ESM and offline-HTML IIFE (committed into the
// Python package), and lib/*.js for `jupyter labextension build`.
//   node build.mjs                  all three
//   node build.mjs --static-only D  only the committed bundles, into folder D (freshness check)

import { copyFileSync } from 'node:fs';
import * as esbuild from 'esbuild';

const common = { bundle: true, target: 'es2020', legalComments: 'none', logLevel: 'warning', charset: 'utf8' };
const only = process.argv.indexOf('--static-only');
const pkgStatic = only >= 0 ? process.argv[only + 1] : '../ascend_ir_lab/static';

await esbuild.build({ ...common, entryPoints: ['src/anywidget.ts'], format: 'esm', minify: true, outfile: `${pkgStatic}/viewer.js` });
await esbuild.build({ ...common, entryPoints: ['src/standalone.ts'], format: 'iife', minify: true, outfile: `${pkgStatic}/viewer-standalone.js` });
copyFileSync('style/viewer.css', `${pkgStatic}/viewer.css`);
if (only < 0)
  await esbuild.build({
    ...common,
    entryPoints: { index: 'src/index.ts', plugin: 'src/plugin.ts' },
    format: 'esm',
    outdir: 'lib',
    external: ['@jupyterlab/*', '@lumino/*', '@codemirror/*', '@lezer/*']
  });
