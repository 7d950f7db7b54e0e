// The date-time picker's pure logic: no DOM, no React. Tested by e2e/picker.test.mjs.
// Constants are the spec's (sections 5 and 9).
import { cs } from 'date-fns/locale/cs';
import { de } from 'date-fns/locale/de';
import { enAU } from 'date-fns/locale/en-AU';
import { enUS } from 'date-fns/locale/en-US';
import { es } from 'date-fns/locale/es';
import { fr } from 'date-fns/locale/fr';
import { it } from 'date-fns/locale/it';
import { pt } from 'date-fns/locale/pt';
import type { Locale } from 'date-fns';
import { addDays } from 'date-fns/addDays';
import { addMonths } from 'date-fns/addMonths';
import { format } from 'date-fns/format';
import { isValid } from 'date-fns/isValid';
import { parse } from 'date-fns/parse';
import { startOfMonth } from 'date-fns/startOfMonth';

export const MODES = ['single', 'range', 'rangeFrom', 'rangeTo'] as const;
export type Mode = (typeof MODES)[number];

export const WEEKS_SHOWN = 6; // month view: 6 rows of 7 days
export const DAYS_PER_WEEK = 7;
export const MONTH_COLUMNS = 3; // year view: 12 months in 3 columns
export const YEARS_BEFORE = 10; // year lists: 10 before and 10 after
export const YEARS_AFTER = 10;
export const YEAR_COLUMNS = 3; // multi-year view: 21 years, 7 rows of 3
export const YEARS_SHOWN = YEARS_BEFORE + 1 + YEARS_AFTER;
export const TIME_DEBOUNCE_MS = 750;
export const OPEN_MS = 400;
export const CLOSE_MS = 100;
export const DEFAULT_FORMAT = 'dd/MM/yyyy';
export const HOURS = { min: 0, max: 23, step: 1 };
export const MINUTES = { min: 0, max: 59, step: 1 };
export const SECONDS = { min: 0, max: 59, step: 1 };

// The admin's locales, as date-fns locale objects (week start and month names come from them).
const LOCALES: Record<string, Locale> = {
  en_US: enUS, fr_FR: fr, es_ES: es, de_DE: de, pt_PT: pt, it_IT: it, cs_CZ: cs, en_AU: enAU,
};

/** dateLocale is the date-fns locale of an admin locale ("fr_FR" or "fr-FR"); en_US otherwise. */
export function dateLocale(name: string | undefined): Locale {
  return LOCALES[(name || '').replace('-', '_')] || enUS;
}

/** weekStart is the first day of the week (0 = Sunday) for an admin locale. */
export function weekStart(name: string | undefined): number {
  return dateLocale(name).options?.weekStartsOn ?? 0;
}

export function isMode(m: unknown): m is Mode {
  return typeof m === 'string' && (MODES as readonly string[]).includes(m);
}

/** dayKey compares days without their time. */
export function dayKey(d: Date): number {
  return d.getFullYear() * 10000 + d.getMonth() * 100 + d.getDate();
}

export function sameDay(a: Date | null | undefined, b: Date | null | undefined): boolean {
  return !!a && !!b && dayKey(a) === dayKey(b);
}

/**
 * monthGrid is the month view: 6 weeks of 7 days starting on the locale's week start,
 * beginning with the week that holds the 1st of the month.
 */
export function monthGrid(year: number, month: number, weekStartsOn: number): Date[][] {
  const first = startOfMonth(new Date(year, month, 1));
  const lead = (first.getDay() - weekStartsOn + 7) % 7;
  let day = addDays(first, -lead);
  const weeks: Date[][] = [];
  for (let w = 0; w < WEEKS_SHOWN; w++) {
    const week: Date[] = [];
    for (let i = 0; i < DAYS_PER_WEEK; i++) {
      week.push(day);
      day = addDays(day, 1);
    }
    weeks.push(week);
  }
  return weeks;
}

/** weekdayNames are the short day names in the order of the locale's week. */
export function weekdayNames(loc: Locale, weekStartsOn: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < DAYS_PER_WEEK; i++) {
    // 2023-01-01 is a Sunday.
    out.push(format(new Date(2023, 0, 1 + ((weekStartsOn + i) % 7)), 'EEEEEE', { locale: loc }));
  }
  return out;
}

/** monthRows is the year view: the 12 months in rows of 3. */
export function monthRows(): number[][] {
  const rows: number[][] = [];
  for (let m = 0; m < 12; m += MONTH_COLUMNS) rows.push([m, m + 1, m + 2]);
  return rows;
}

/** yearPage is the multi-year view around a year: 10 before, it, 10 after, in rows of 3. */
export function yearPage(center: number): number[][] {
  const rows: number[][] = [];
  const start = center - YEARS_BEFORE;
  for (let i = 0; i < YEARS_SHOWN; i += YEAR_COLUMNS) rows.push([start + i, start + i + 1, start + i + 2]);
  return rows;
}

/** clamp keeps a date within min and max (either may be missing). */
export function clamp(d: Date, min?: Date | null, max?: Date | null): Date {
  if (min && d < min) return new Date(min);
  if (max && d > max) return new Date(max);
  return d;
}

/** outside reports whether a whole day lies outside min and max. */
export function outside(d: Date, min?: Date | null, max?: Date | null): boolean {
  return (!!min && dayKey(d) < dayKey(min)) || (!!max && dayKey(d) > dayKey(max));
}

export interface Range {
  from: Date | null;
  to: Date | null;
}

/** orderRange puts the earlier date first. */
export function orderRange(r: Range): Range {
  if (r.from && r.to && r.to < r.from) return { from: r.to, to: r.from };
  return r;
}

/**
 * pick applies a click on a day to the selection. single: the day. rangeFrom / rangeTo:
 * that end, the other kept (swapped when the new end passes it). range: the first pick
 * starts a range, the second ends it; picking an end before the start swaps them; a pick
 * after a complete range starts a new one.
 */
export function pick(mode: Mode, r: Range, day: Date): Range {
  switch (mode) {
    case 'single':
      return { from: day, to: null };
    case 'rangeFrom':
      return orderRange({ from: day, to: r.to });
    case 'rangeTo':
      return orderRange({ from: r.from, to: day });
    default:
      if (!r.from || r.to) return { from: day, to: null };
      return orderRange({ from: r.from, to: day });
  }
}

/** inRange reports whether a day is within a complete range (ends included). */
export function inRange(r: Range, d: Date): boolean {
  return !!r.from && !!r.to && dayKey(d) >= dayKey(r.from) && dayKey(d) <= dayKey(r.to);
}

function bound(n: number, lo: number, hi: number): number {
  if (!Number.isFinite(n)) return lo;
  return Math.min(hi, Math.max(lo, Math.trunc(n)));
}

/** clampTime keeps hours within 0–23 and minutes and seconds within 0–59. */
export function clampTime(h: number, m: number, s: number): [number, number, number] {
  return [bound(h, HOURS.min, HOURS.max), bound(m, MINUTES.min, MINUTES.max), bound(s, SECONDS.min, SECONDS.max)];
}

/** to12 turns a 0–23 hour into 1–12 with pm. */
export function to12(h: number): { hour: number; pm: boolean } {
  return { hour: h % 12 === 0 ? 12 : h % 12, pm: h >= 12 };
}

/** from12 turns a 1–12 hour and pm back into 0–23. */
export function from12(hour: number, pm: boolean): number {
  const h = bound(hour, 1, 12) % 12;
  return pm ? h + 12 : h;
}

/** parseTime reads typed "HH:mm" or "HH:mm:ss" (clamped); null when it is not a time. */
export function parseTime(text: string): [number, number, number] | null {
  // "9:30", "21:30:15", and with a 12-hour clock "9:30 pm" / "9:30 PM" / "9:30 p.m.".
  const m = /^\s*(\d{1,2})(?::(\d{1,2}))?(?::(\d{1,2}))?\s*(?:([ap])\.?\s*m\.?)?\s*$/i.exec(text);
  if (!m) return null;
  let hour = Number(m[1]);
  if (m[4]) {
    if (hour < 1 || hour > 12) return null;
    hour = from12(hour, m[4].toLowerCase() === 'p');
  }
  return clampTime(hour, Number(m[2] || 0), Number(m[3] || 0));
}

/** The values a native date or datetime-local input posts, and what the hidden input posts. */
export function toValue(d: Date | null, withTime: boolean, seconds = false): string {
  if (!d) return '';
  if (!withTime) return format(d, 'yyyy-MM-dd');
  return format(d, seconds ? "yyyy-MM-dd'T'HH:mm:ss" : "yyyy-MM-dd'T'HH:mm");
}

export function fromValue(v: string | undefined | null): Date | null {
  if (!v) return null;
  for (const f of ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", 'yyyy-MM-dd']) {
    const d = parse(v, f, new Date(2000, 0, 1));
    if (isValid(d)) return d;
  }
  return null;
}

/** display formats a date for the field (default dd/MM/yyyy), with the time when asked. */
export function display(d: Date | null, withTime: boolean, fmt = DEFAULT_FORMAT, seconds = false, hour12 = false): string {
  if (!d) return '';
  if (!withTime) return format(d, fmt);
  const t = hour12 ? (seconds ? 'hh:mm:ss a' : 'hh:mm a') : (seconds ? 'HH:mm:ss' : 'HH:mm');
  return format(d, fmt + ' ' + t);
}

/** moveMonth moves a day by whole months (keyboard PageUp / PageDown), clamped to the month's end. */
export function moveMonth(d: Date, n: number): Date {
  return addMonths(d, n);
}

export { addDays };
