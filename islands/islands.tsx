// The one entry that mounts every React island: <div data-island="name" data-props='{…}'>.
import { createElement, type ComponentType } from 'react';
import { createRoot } from 'react-dom/client';

const registry: Record<string, ComponentType<any>> = {};

export function register(name: string, component: ComponentType<any>): void {
  registry[name] = component;
}

export function mountAll(root: ParentNode = document): void {
  for (const el of Array.from(root.querySelectorAll<HTMLElement>('[data-island]'))) {
    if (el.dataset.mounted) continue;
    const component = registry[el.dataset.island || ''];
    if (!component) {
      console.warn('unknown island', el.dataset.island);
      continue;
    }
    let props = {};
    try {
      props = JSON.parse(el.dataset.props || '{}');
    } catch (err) {
      console.error('bad island props', el.dataset.island, err);
    }
    el.dataset.mounted = 'true';
    createRoot(el).render(createElement(component, props));
  }
}

// Mount after the current task, so entries loaded after this one can register first.
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => mountAll());
else queueMicrotask(() => mountAll());
