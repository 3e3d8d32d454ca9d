#!/usr/bin/env bash
# Build the viewer: npm ci, type-check, esbuild bundles (committed: ascend_ir_lab/static/*.js),
# then the prebuilt JupyterLab extension into ascend_ir_lab/labextension/ (gitignored).
# Idempotent. Without node it leaves the committed bundles alone and exits 0.
#   scripts/build_frontend.sh            build what is missing or stale
#   scripts/build_frontend.sh --force    rebuild everything
set -euo pipefail
cd "$(dirname "$0")/../labextension"
FORCE=${1:-}
LABEXT=../ascend_ir_lab/labextension

if ! command -v node >/dev/null 2>&1; then
  echo "build_frontend: node not found; using the committed bundles in ascend_ir_lab/static" >&2
  [ -f "$LABEXT/package.json" ] || echo "build_frontend: no labextension built (needs node >= 20)" >&2
  exit 0
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

stale() {  # true when any source is newer than $1
  [ "$FORCE" = "--force" ] || [ ! -f "$1" ] || \
    [ -n "$(find src style build.mjs ../ascend_ir_lab/static/mlir-grammar.json -newer "$1" -print -quit)" ]
}

if stale ../ascend_ir_lab/static/viewer-standalone.js || stale lib/index.js; then
  ./node_modules/.bin/tsc --noEmit -p .
  node build.mjs
  echo "build_frontend: bundles written to ascend_ir_lab/static and lib/"
fi

if stale "$LABEXT/package.json"; then
  PY=${PYTHON:-python}
  CORE=$("$PY" -c "import jupyterlab, os; print(os.path.join(os.path.dirname(jupyterlab.__file__), 'staging'))")
  "$PY" -m jupyterlab.labextensions build . --core-path "$CORE"
  echo "build_frontend: labextension written to ascend_ir_lab/labextension"
else
  echo "build_frontend: labextension up to date"
fi
