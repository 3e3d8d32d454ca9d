// Offline HTML host: the payload sits in <script type="application/json" id="air-payload">
// (escaped by ascend_ir_lab.export.html); nothing else is read, nothing is fetched.

import { mountViewer } from './viewer/app';

function boot(): void {
  const el = document.getElementById('air-app');
  const data = document.getElementById('air-payload');
  if (!el) {
    return;
  }
  let payload: unknown = null;
  try {
    payload = JSON.parse(data?.textContent ?? 'null');
  } catch {
    payload = null;
  }
  mountViewer(el, payload);
  el.querySelector<HTMLElement>('.air-root')?.focus();
  performance.mark('ascend-ir-lab:mounted');
}

if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', boot);
} else {
  boot();
}
