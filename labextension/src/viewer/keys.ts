// The viewer's keyboard: single keys on the viewer's root, none while a control has the focus
// (Escape there gives the focus back), none with a modifier (the host's shortcuts keep theirs).

/** Listen for the keys of `actions` on root. */
export function bindKeys(root: HTMLElement, actions: () => Record<string, () => void>): void {
  root.addEventListener('keydown', ev => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) {
      return;
    }
    ev.stopPropagation();
    const t = ev.target as HTMLElement;
    if (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT') {
      if (ev.key === 'Escape') {
        t.blur();
        root.focus();
      }
      return;
    }
    const act = actions()[ev.key];
    if (act) {
      ev.preventDefault();
      act();
    }
  });
}
