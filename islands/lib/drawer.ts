// The navigation drawer of narrow screens. Without script the menu button is a link to
// #drawer and CSS shows the drawer while it is the target; with script the button opens it
// as a dialog-like panel: aria-expanded, focus inside and kept there, Escape closes it.
const FOCUSABLE = 'a[href], button:not([disabled]), select, input:not([type=hidden])';

export function init(): void {
  const button = document.querySelector<HTMLAnchorElement>('.menu-btn');
  const drawer = document.getElementById('drawer');
  if (!button || !drawer) return;
  button.setAttribute('role', 'button');

  const isOpen = () => drawer.classList.contains('open');
  const close = (refocus: boolean) => {
    if (!isOpen()) return;
    drawer.classList.remove('open');
    button.setAttribute('aria-expanded', 'false');
    if (refocus) button.focus();
  };
  const open = () => {
    drawer.classList.add('open');
    button.setAttribute('aria-expanded', 'true');
    drawer.querySelector<HTMLElement>('nav a')?.focus();
  };

  button.addEventListener('click', (e) => {
    e.preventDefault();
    if (isOpen()) close(true);
    else open();
  });
  drawer.querySelector('[data-drawer-close]')?.addEventListener('click', (e) => {
    e.preventDefault();
    close(true);
  });
  // A choice in the menu (htmx navigation) closes it.
  drawer.addEventListener('click', (e) => {
    if ((e.target as Element).closest('nav a')) close(false);
  });
  document.addEventListener('keydown', (e) => {
    if (!isOpen()) return;
    if (e.key === 'Escape') {
      close(true);
      return;
    }
    if (e.key !== 'Tab') return;
    const items = Array.from(drawer.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((el) => el.offsetParent !== null);
    if (items.length === 0) return;
    const first = items[0];
    const last = items[items.length - 1];
    if (e.shiftKey && (document.activeElement === first || !drawer.contains(document.activeElement))) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && (document.activeElement === last || !drawer.contains(document.activeElement))) {
      e.preventDefault();
      first.focus();
    }
  });
  // Back to a wide screen: the drawer is the side navigation again.
  matchMedia('(min-width: 768px)').addEventListener('change', (m) => { if (m.matches) close(false); });
}
