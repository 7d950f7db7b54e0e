// The admin shell's script: htmx, the loading overlay, toasts, island bundles on demand
// (the date-time picker) and small conveniences.
// Everything here is an enhancement: the pages work without it.
import htmx from 'htmx.org';
import { init as drawer } from './lib/drawer';
import { init as islandsOnDemand } from './lib/lazy';
import { begin, end, skipped } from './lib/overlay';
import { arm, toast } from './lib/toast';
import { install as errorToasts } from './lib/errors';

declare global {
  interface Window { htmx: typeof htmx }
}
window.htmx = htmx;
document.documentElement.classList.add('js'); // boot.ts did already, unless it failed

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

// Failed htmx requests: an error toast, sign-in on a 401 (lib/errors.ts).
errorToasts({
  timeout: ADMIN_TOAST_MS,
  unreachable: () => document.getElementById('toasts')?.dataset.unreachable || 'The server could not be reached.',
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

// Keep the side navigation's current item in step with htmx navigation, and start the
// reading again at the main area, unless the user is at work in a form whose results are
// being swapped (the dashboard's period): they keep their place.
let swapTarget: Element | null = null;
document.addEventListener('htmx:beforeRequest', (e) => {
  swapTarget = (e as CustomEvent).detail?.target || null;
});
document.addEventListener('htmx:pushedIntoHistory', () => {
  for (const a of Array.from(document.querySelectorAll<HTMLAnchorElement>('.sidenav a'))) {
    const here = location.pathname === a.pathname || location.pathname.startsWith(a.pathname + '/');
    if (here) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const at = document.activeElement;
  if (at && at.closest('form') && swapTarget && !swapTarget.contains(at)) return;
  document.getElementById('main')?.focus();
});

// data-autosubmit: a select so marked, or an island inside an element so marked (its value
// changes in its hidden inputs), submits its form when it changes; native text and date
// inputs do not, as they change while being typed in. data-autosubmit-set="id=value" first
// sets another field of the page (the dashboard's dates choose "Custom range").
document.addEventListener('change', (e) => {
  const el = e.target as HTMLInputElement | HTMLSelectElement;
  const auto = el.closest<HTMLElement>('[data-autosubmit]');
  if (!auto || !el.form || !(el instanceof HTMLSelectElement || el.type === 'hidden')) return;
  const [id, value] = (auto.dataset.autosubmitSet || '').split('=');
  const other = id ? document.getElementById(id) : null;
  if (other instanceof HTMLSelectElement || other instanceof HTMLInputElement) other.value = value;
  el.form.requestSubmit();
});

drawer();
islandsOnDemand(document.querySelector<HTMLElement>('script[data-islands]'));

document.addEventListener('DOMContentLoaded', () => {
  for (const el of Array.from(document.querySelectorAll<HTMLElement>('#toasts [data-toast]'))) arm(el, ADMIN_TOAST_MS);
});
