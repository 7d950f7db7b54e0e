// The mobile lead manager's entry: registers its island with the shared mount contract
// (<div data-island="mobile-app" data-props='{…}'>) and mounts it.
import { mountAll, register } from '../islands';
import { App, type AppProps } from './App';
import type { EarlyInput } from './LeadList';

// The list screen arrives drawn by the server and the bundle starts after the first paint, so
// a user may already be using it: the island takes over the text typed into the server's
// search field (and its focus) and opens the panel or menu whose button was tapped
// (islands/mobile/boot.ts notes it), instead of dropping them with that render.
register('mobile-app', App, (el: HTMLElement, props: AppProps): AppProps => {
  const field = el.querySelector<HTMLInputElement>('#lead-search');
  const tapped = el.dataset.tapped;
  delete el.dataset.tapped;
  const early: EarlyInput = {
    search: field?.value ?? '',
    searchFocused: !!field && document.activeElement === field,
    tapped: tapped === 'sort' || tapped === 'filter' || tapped === 'menu' ? tapped : undefined,
  };
  return early.search || early.tapped ? { ...props, early } : props;
});
if (document.readyState !== 'loading') mountAll();
