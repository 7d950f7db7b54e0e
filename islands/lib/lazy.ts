// Island bundles on demand, for the admin pages. The shell's script tag names each
// island's bundle (data-islands='{"picker": "/static/build/picker-….js"}'); a page names no
// script of its own. An island element (<div data-island="picker" data-props='…'>) holds the
// native field(s) it replaces, so the page works before, and without, its bundle:
//
// - by default the bundle is loaded as soon as such an element is on the page (full load or
//   htmx swap);
// - with data-load="intent" (fields of pages with a first-load budget: the lead list's, the
//   client list's and the dashboard's date ranges) only when the user first presses or focuses it; pointing at
//   it only prefetches the bundle (mounting then would move the layout under the pointer).
//   Focus moves on to the island's field once it is mounted, and a press on the native field
//   opens the island's dialog instead of the browser's own.
//
// The bundle mounts its islands itself, again after every htmx swap (islands/islands.tsx),
// and reports each with an `island:mounted` event; focus inside an island that a swap
// replaces moves to the new one with the same id.
//
// This file must stay small and free of React: it is part of every admin page's first load.

type Want = { focus?: boolean; open?: boolean };

declare global {
  interface Window { crmIslands?: Record<string, (root?: ParentNode) => void> }
}

let sources: Record<string, string> = {};
const loading: Partial<Record<string, Promise<void>>> = {};
const failed: Record<string, boolean> = {};
const prefetched: Record<string, boolean> = {};
const wants = new WeakMap<HTMLElement, Want>();
let pressed: HTMLElement | null = null; // an island waiting for its bundle, under a press
let lostFocus: string | null = null; // the id of a focused island a swap is replacing

/** load brings an island's bundle in (once) and mounts its islands. */
export function load(name: string): Promise<void> {
  const mount = window.crmIslands?.[name];
  if (mount) {
    mount();
    return Promise.resolve();
  }
  const src = sources[name];
  if (!src || failed[name]) return Promise.reject(new Error(`no bundle for island ${name}`));
  return (loading[name] ||= new Promise<void>((resolve, reject) => {
    const s = document.createElement('script');
    s.src = src;
    s.async = true;
    s.onload = () => {
      window.crmIslands?.[name]?.();
      resolve();
    };
    s.onerror = () => {
      failed[name] = true; // keep the native fields for the rest of this page's life
      s.remove();
      reject(new Error(`island bundle did not load: ${src}`));
    };
    document.head.appendChild(s);
  }));
}

// waiting is the island element around t whose bundle can still come, if any.
function waiting(t: EventTarget | null): HTMLElement | null {
  const el = t instanceof Element ? t.closest<HTMLElement>('[data-island]:not([data-mounted])') : null;
  const name = el?.dataset.island || '';
  return el && sources[name] && !failed[name] ? el : null;
}

// prefetch puts the bundle in the HTTP cache (it is served immutable), without running it.
function prefetch(name: string): void {
  if (prefetched[name] || loading[name] || window.crmIslands?.[name] || !sources[name]) return;
  prefetched[name] = true;
  const l = document.createElement('link');
  l.rel = 'prefetch';
  l.as = 'script';
  l.href = sources[name];
  document.head.appendChild(l);
}

function want(el: HTMLElement): Want {
  let w = wants.get(el);
  if (!w) wants.set(el, (w = {}));
  return w;
}

function start(el: HTMLElement): void {
  load(el.dataset.island || '').catch((err) => {
    console.warn(err);
    const w = wants.get(el);
    wants.delete(el);
    // The press that was meant for the island goes to the native field.
    if (w?.open) el.querySelector<HTMLElement>('input, select, textarea')?.focus();
  });
}

function keyOf(el: Element | null | undefined): string | null {
  try {
    return (el && JSON.parse((el as HTMLElement).dataset.props || '{}').id) || null;
  } catch {
    return null;
  }
}

// control is the island's own field: what gets focus and what a press opens.
function control(el: HTMLElement): HTMLElement | null {
  return el.querySelector<HTMLElement>('[aria-haspopup], button, input:not([type=hidden]), select, textarea');
}

// open focuses the island's field and opens its dialog (unless it is open already).
function open(el: HTMLElement): void {
  const c = control(el);
  if (!c) return;
  c.focus();
  if (c.getAttribute('aria-haspopup') && c.getAttribute('aria-expanded') !== 'true') c.click();
}

function idle(): boolean {
  return !document.activeElement || document.activeElement === document.body;
}

function scan(): void {
  for (const el of Array.from(document.querySelectorAll<HTMLElement>('[data-island]:not([data-mounted])'))) {
    const name = el.dataset.island || '';
    if (el.dataset.load !== 'intent' && sources[name] && !failed[name] && !window.crmIslands?.[name]) start(el);
  }
}

/** init reads the bundles' addresses from the shell's script tag and starts watching. */
export function init(script: HTMLElement | null): void {
  try {
    sources = JSON.parse(script?.dataset.islands || '{}');
  } catch {
    sources = {};
  }

  document.addEventListener('pointerover', (e) => {
    const el = waiting(e.target);
    if (el) prefetch(el.dataset.island || '');
  }, { passive: true });
  document.addEventListener('focusin', (e) => {
    const el = waiting(e.target);
    if (!el) return;
    want(el).focus = true;
    start(el);
  });
  // A press on a waiting island opens it once mounted, which may be before the press ends.
  document.addEventListener('pointerdown', (e) => {
    pressed = waiting(e.target);
    if (!pressed) return;
    want(pressed).open = true;
    start(pressed);
  }, true);
  // The press's click, if any, comes in the same task as its pointerup.
  document.addEventListener('pointerup', () => { if (pressed) setTimeout(() => { pressed = null; }, 0); }, true);
  document.addEventListener('pointercancel', () => { pressed = null; }, true);
  document.addEventListener('keydown', () => { pressed = null; }, true);
  // The click that ends such a press is the island's (it is open, or opens once mounted), not
  // the browser's date chooser's, nor a second click on the island's field that would close it.
  document.addEventListener('click', (e) => {
    const el = pressed;
    pressed = null;
    if (!el || !e.isTrusted || !(e.target instanceof Node)) return;
    if (!el.contains(e.target) && !e.target.contains(el)) return;
    e.preventDefault();
    e.stopPropagation();
    if (el.dataset.mounted) open(el);
  }, true);

  document.addEventListener('island:mounted', (e) => {
    const el = e.target as HTMLElement;
    const w = wants.get(el) || {};
    wants.delete(el);
    const key = keyOf(el);
    const lost = key !== null && key === lostFocus;
    if (lost) lostFocus = null;
    if (w.open) open(el);
    else if ((w.focus || lost) && idle()) control(el)?.focus();
  });

  document.addEventListener('htmx:beforeSwap', () => {
    lostFocus = keyOf(document.activeElement?.closest('[data-island][data-mounted]'));
  });
  document.addEventListener('htmx:afterSettle', () => { lostFocus = null; });
  document.addEventListener('htmx:afterSwap', scan);
  document.addEventListener('htmx:load', scan);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', scan);
  else scan();
}
