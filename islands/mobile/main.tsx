// The mobile lead manager's entry: registers its island with the shared mount contract
// (<div data-island="mobile-app" data-props='{…}'>) and mounts it.
import { mountAll, register } from '../islands';
import { App } from './App';

register('mobile-app', App);
if (document.readyState !== 'loading') mountAll();
