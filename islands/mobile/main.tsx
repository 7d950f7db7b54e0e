// The mobile lead manager's entry: registers its island with the shared mount contract
// (<div data-island="mobile-app" data-props='{…}'>) and mounts it.
import { mountAll, register } from '../islands';
import { App, type AppProps } from './App';

// The list screen arrives drawn by the server and the bundle starts after the first paint, so
// a user may already be typing in the server's search field: the island takes the text (and
// the focus) over instead of dropping them with that render.
register('mobile-app', App, (el: HTMLElement, props: AppProps): AppProps => {
  const field = el.querySelector<HTMLInputElement>('#lead-search');
  if (!field?.value) return props;
  return { ...props, typedSearch: { text: field.value, focused: document.activeElement === field } };
});
if (document.readyState !== 'loading') mountAll();
