// The mount contract of every React island: <div data-island="name" data-props='{…}'>.
// A bundle registers its islands and mounts them: at once, and again whenever htmx swaps
// content in (a swapped region, an out-of-band swap, a history restore). A page may carry
// islands of bundles that are not loaded (yet): the admin shell's script loads a bundle on
// demand (islands/lib/lazy.ts) and each bundle mounts only the islands it registered.
// Each mounted element gets data-mounted and then an `island:mounted` event (bubbling),
// which the loader uses to hand focus over from the native field the island replaced.
import { createElement, type ComponentType } from 'react';
import { flushSync } from 'react-dom';
import { createRoot, type Root } from 'react-dom/client';

type Adapt = (el: HTMLElement, props: any) => any;

declare global {
  // The islands this page's bundles registered, each with its bundle's mountAll.
  interface Window { crmIslands?: Record<string, (root?: ParentNode) => void> }
}

const registry: Record<string, { component: ComponentType<any>; adapt?: Adapt }> = {};
const roots = new Map<HTMLElement, Root>();

/**
 * register adds an island to this bundle. adapt, if given, may change the props read from
 * data-props just before mounting (the picker takes the values its native inputs hold).
 */
export function register(name: string, component: ComponentType<any>, adapt?: Adapt): void {
  registry[name] = { component, adapt };
  (window.crmIslands ||= {})[name] = mountAll;
}

/** registered reports whether a bundle of this page has registered the island. */
export function registered(name: string): boolean {
  return !!window.crmIslands?.[name];
}

export function mountAll(root: ParentNode = document): void {
  const found = Array.from(root.querySelectorAll<HTMLElement>('[data-island]'));
  if (root instanceof HTMLElement && root.matches('[data-island]')) found.unshift(root);
  for (const el of found) {
    if (el.dataset.mounted) continue;
    const entry = registry[el.dataset.island || ''];
    if (!entry) continue; // another bundle's island
    let props = {};
    try {
      props = JSON.parse(el.dataset.props || '{}');
    } catch (err) {
      console.error('bad island props', el.dataset.island, err);
    }
    if (entry.adapt) props = entry.adapt(el, props);
    el.dataset.mounted = 'true';
    const r = createRoot(el);
    roots.set(el, r);
    // Synchronously, so the native field is gone and the island's is there when the event fires.
    flushSync(() => r.render(createElement(entry.component, props)));
    el.dispatchEvent(new CustomEvent('island:mounted', { bubbles: true }));
  }
}

// sweep unmounts the islands htmx swapped out of the page.
function sweep(): void {
  for (const [el, r] of roots) {
    if (!el.isConnected) {
      roots.delete(el);
      r.unmount();
    }
  }
}

// htmx:afterSwap comes before the settle delay (no flash of the native inputs) and on each
// element an out-of-band swap replaced; htmx:load covers history restores and the rest.
for (const type of ['htmx:afterSwap', 'htmx:load']) {
  document.addEventListener(type, () => {
    sweep();
    mountAll();
  });
}

// Mount after the current task, so entries loaded after this one can register first.
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => mountAll());
else queueMicrotask(() => mountAll());
