// Every admin page and mobile screen at a laptop's width (e2e/layout.mjs says what is checked).
import { everyPageAt, LAPTOP } from './layout.mjs';

everyPageAt(LAPTOP);
