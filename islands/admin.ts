// The admin shell's script: htmx, the loading overlay, toasts and small conveniences.
// Everything here is an enhancement: the pages work without it.
import htmx from 'htmx.org';
import { begin, end, skipped } from './lib/overlay';
import { arm, toast } from './lib/toast';

declare global {
  interface Window { htmx: typeof htmx }
}
window.htmx = htmx;
document.documentElement.classList.add('js');

const ADMIN_TOAST_MS = 5000;

document.addEventListener('htmx:beforeRequest', (e) => {
  const d = (e as CustomEvent).detail;
  if (skipped(d.requestConfig?.headers)) return;
  d.xhr.__crmOverlay = true;
  begin();
});
document.addEventListener('htmx:afterRequest', (e) => {
  const d = (e as CustomEvent).detail;
  if (d.xhr?.__crmOverlay) {
    d.xhr.__crmOverlay = false;
    end();
  }
});

// Server-sent toasts: HX-Trigger: {"toast": {"level": "...", "message": "..."}}.
document.addEventListener('toast', (e) => {
  const d = (e as CustomEvent).detail || {};
  toast(d.message, d.level || 'success', { timeout: ADMIN_TOAST_MS });
});

// Plain (non-htmx) form posts also show the overlay until the next page arrives.
document.addEventListener('submit', (e) => {
  const form = e.target as HTMLFormElement;
  if (!form.hasAttribute('hx-post') && !form.hasAttribute('hx-get') && !e.defaultPrevented) begin();
});
window.addEventListener('pageshow', () => {
  const el = document.getElementById('overlay');
  if (el) el.hidden = true;
});

// Keep the side navigation's current item in step with htmx navigation.
document.addEventListener('htmx:pushedIntoHistory', () => {
  for (const a of Array.from(document.querySelectorAll<HTMLAnchorElement>('.sidenav a'))) {
    const here = location.pathname === a.pathname || location.pathname.startsWith(a.pathname + '/');
    if (here) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.getElementById('main')?.focus();
});

document.addEventListener('change', (e) => {
  const el = e.target as HTMLElement;
  if (el.matches('select[data-autosubmit]')) (el as HTMLSelectElement).form?.requestSubmit();
});

document.addEventListener('DOMContentLoaded', () => {
  for (const el of Array.from(document.querySelectorAll<HTMLElement>('#toasts [data-toast]'))) arm(el, ADMIN_TOAST_MS);
});
