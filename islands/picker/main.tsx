// The picker entry (picker.js): registers the date-time picker island and mounts it.
// The admin shell's script loads it on demand (islands/lib/lazy.ts); a page may also name
// it in a script tag. Loaded twice, the second copy does nothing.
import { register, registered } from '../islands';
import { Picker, type PickerProps } from './Picker';

// The island starts from what its native inputs hold (typed before the bundle arrived, or
// restored by the browser), falling back to the server's values.
function adapt(el: HTMLElement, p: PickerProps): PickerProps {
  const value = (name?: string) => (name ? el.querySelector<HTMLInputElement>(`input[name="${CSS.escape(name)}"]`)?.value : undefined);
  return { ...p, value: value(p.name) ?? p.value, valueTo: value(p.nameTo) ?? p.valueTo };
}

if (!registered('picker')) register('picker', Picker, adapt);
