// Every admin page and mobile screen at a phone's width (e2e/layout.mjs says what is checked).
import { everyPageAt, PHONE } from './layout.mjs';

everyPageAt(PHONE);
