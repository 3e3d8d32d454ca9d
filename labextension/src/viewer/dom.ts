// DOM construction for the viewer. Text is only ever set through text nodes: nothing from a
// payload reaches innerHTML, attribute event handlers or URLs.

export type Child = Node | string | null | undefined | false;

export interface Attrs {
  cls?: string;
  title?: string;
  role?: string;
  type?: string;
  value?: string;
  placeholder?: string;
  tabindex?: number;
  data?: Record<string, string>;
  aria?: Record<string, string>;
}

function applyAttrs(el: HTMLElement, attrs: Attrs): void {
  if (attrs.cls) {
    el.className = attrs.cls;
  }
  if (attrs.title !== undefined) {
    el.title = attrs.title;
  }
  if (attrs.role) {
    el.setAttribute('role', attrs.role);
  }
  if (attrs.type) {
    el.setAttribute('type', attrs.type);
  }
  if (attrs.placeholder !== undefined) {
    el.setAttribute('placeholder', attrs.placeholder);
  }
  if (attrs.tabindex !== undefined) {
    el.tabIndex = attrs.tabindex;
  }
  if (attrs.value !== undefined && 'value' in el) {
    (el as HTMLInputElement).value = attrs.value;
  }
  for (const [k, v] of Object.entries(attrs.data ?? {})) {
    el.dataset[k] = v;
  }
  for (const [k, v] of Object.entries(attrs.aria ?? {})) {
    el.setAttribute(`aria-${k}`, v);
  }
}

/** Create an element; string children become text nodes. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) {
    applyAttrs(el, attrs);
  }
  append(el, ...children);
  return el;
}

export function append(el: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) {
      continue;
    }
    el.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  }
}

export function clear(el: Node): void {
  while (el.firstChild) {
    el.removeChild(el.firstChild);
  }
}

export function button(label: string, title: string, onClick: () => void, cls = ''): HTMLButtonElement {
  const b = h('button', { cls: `air-btn ${cls}`.trim(), title, type: 'button' }, label);
  b.addEventListener('click', ev => {
    ev.preventDefault();
    onClick();
  });
  return b;
}

export function checkbox(label: string, title: string, checked: boolean, onChange: (on: boolean) => void): HTMLLabelElement {
  const box = h('input', { type: 'checkbox' });
  box.checked = checked;
  box.addEventListener('change', () => onChange(box.checked));
  return h('label', { cls: 'air-check', title }, box, label);
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg(tag: string, attrs: Record<string, string | number>): SVGElement {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    el.setAttribute(k, String(v));
  }
  return el;
}
