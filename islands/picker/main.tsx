// The picker entry (picker.js): registers the date-time picker island and mounts it.
import { register } from '../islands';
import { Picker } from './Picker';

register('picker', Picker);
