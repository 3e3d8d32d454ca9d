// Offline HTML host: the payload sits in <script type="application/json" id="air-payload">
// (escaped by ascend_ir_lab.export.html), plain or packed (gzip+base64, unpacked by the
// browser's DecompressionStream); nothing else is read, nothing is fetched.

import { mountAny } from './viewer/mount';

async function boot(): Promise<void> {
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
  performance.mark('ascend-ir-lab:parsed');
  await mountAny(el, payload);
  el.querySelector<HTMLElement>('.air-root')?.focus();
  performance.mark('ascend-ir-lab:mounted');
}

if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', () => void boot());
} else {
  void boot();
}
