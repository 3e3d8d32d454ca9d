// Runs the viewer's unit tests (tests/*.test.ts) with node's own test runner: esbuild turns
// each into one ES module (the JSON tables it imports included) in a scratch folder first.
//   node test.mjs

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';

const tests = readdirSync('tests').filter(f => f.endsWith('.test.ts'));
const out = mkdtempSync(join(tmpdir(), 'viewer-tests-'));
try {
  await esbuild.build({
    entryPoints: tests.map(f => join('tests', f)),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outdir: out,
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning'
  });
  const files = tests.map(f => join(out, f.replace(/\.ts$/, '.mjs')));
  const run = spawnSync(process.execPath, ['--test', ...files], { stdio: 'inherit' });
  process.exitCode = run.status ?? 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}
