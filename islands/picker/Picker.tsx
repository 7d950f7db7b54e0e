// The date-time picker island. The server renders a native <input type="date"> or
// "datetime-local" inside <div data-island="picker">; this replaces it with a field that
// opens a dialog, and keeps hidden inputs with the same names and values, so the form
// posts exactly what the native input would.
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { format } from 'date-fns/format';
import {
  CLOSE_MS, OPEN_MS, TIME_DEBOUNCE_MS, addDays, clamp, clampTime, dateLocale, display,
  fromValue, inRange, isMode, monthGrid, monthRows, moveMonth, outside, parseTime, pick, sameDay,
  toValue, weekStart, weekdayNames, yearPage, type Mode, type Range,
} from './logic';

export interface Labels {
  cancel: string; set: string; from: string; to: string; am: string; pm: string;
  open: string; dialog: string; prevMonth: string; nextMonth: string; prevYears: string; nextYears: string;
  chooseMonth: string; chooseYear: string; hours: string; minutes: string; seconds: string; time: string; clear: string;
}

export interface PickerProps {
  id: string;
  name: string;
  nameTo?: string;
  label: string;
  value?: string;
  valueTo?: string;
  withTime?: boolean;
  seconds?: boolean;
  hour12?: boolean;
  mode?: Mode;
  min?: string;
  max?: string;
  locale?: string;
  format?: string;
  required?: boolean;
  error?: string;
  errorId?: string;
  describedBy?: string; // ids of hints outside the island that describe the field
  testid?: string;
  labels: Labels;
}

type View = 'days' | 'months' | 'years';

function reducedMotion(): boolean {
  return typeof window !== 'undefined' && !!window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
}

export function Picker(p: PickerProps) {
  const mode: Mode = isMode(p.mode) ? p.mode : 'single';
  const ranged = mode !== 'single';
  const withTime = !!p.withTime && !ranged;
  const loc = useMemo(() => dateLocale(p.locale), [p.locale]);
  const ws = weekStart(p.locale);
  const min = fromValue(p.min), max = fromValue(p.max);
  const L = p.labels;

  // committed is what the form posts; draft is what the open dialog shows.
  const [committed, setCommitted] = useState<Range>({ from: fromValue(p.value), to: ranged ? fromValue(p.valueTo) : null });
  const [draft, setDraft] = useState<Range>(committed);
  const [phase, setPhase] = useState<'closed' | 'open' | 'closing'>('closed');
  const [view, setView] = useState<View>('days');
  const [focus, setFocus] = useState<Date>(committed.from || clamp(new Date(), min, max));
  const [timeText, setTimeText] = useState('');
  const hiddenFrom = useRef<HTMLInputElement>(null);
  const hiddenTo = useRef<HTMLInputElement>(null);
  const field = useRef<HTMLButtonElement>(null);
  const grid = useRef<HTMLTableElement>(null);
  const debounce = useRef<number | undefined>(undefined);
  const changed = useRef(false);

  const time = draft.from || focus;
  const h = time.getHours(), m = time.getMinutes(), s = time.getSeconds(); // kept when a day is picked

  useEffect(() => {
    if (phase === 'open' && view === 'days') {
      grid.current?.querySelector<HTMLButtonElement>('button[tabindex="0"]')?.focus();
    }
  }, [phase, view, focus]);

  // After Set, tell the form (htmx filters listen for change) that the value changed.
  useEffect(() => {
    if (!changed.current) return;
    changed.current = false;
    hiddenFrom.current?.dispatchEvent(new Event('change', { bubbles: true }));
  }, [committed]);

  function open() {
    const start = committed.from || clamp(new Date(), min, max);
    setDraft(committed);
    setFocus(start);
    setView('days');
    setTimeText(timeOf(start));
    setPhase('open');
  }

  function close() {
    if (phase !== 'open') return;
    const ms = reducedMotion() ? 0 : CLOSE_MS;
    setPhase('closing');
    window.setTimeout(() => {
      setPhase('closed');
      field.current?.focus();
    }, ms);
  }

  function setDay(day: Date) {
    if (outside(day, min, max)) return;
    let d = day;
    if (withTime) {
      d = new Date(day.getFullYear(), day.getMonth(), day.getDate(), h, m, s);
      d = clamp(d, min, max);
    }
    setDraft((r) => pick(mode, r, d));
    setFocus(d);
  }

  function setTime(hh: number, mm: number, ss: number) {
    const [ch, cm, cs] = clampTime(hh, mm, ss);
    const base = draft.from || focus;
    const d = clamp(new Date(base.getFullYear(), base.getMonth(), base.getDate(), ch, cm, cs), min, max);
    setDraft({ from: d, to: null });
    setFocus(d);
  }

  // timeOf is the time as the typed box shows it.
  function timeOf(d: Date): string {
    return format(d, p.hour12 ? (p.seconds ? 'h:mm:ss a' : 'h:mm a') : (p.seconds ? 'HH:mm:ss' : 'HH:mm'));
  }

  function typedTime(text: string) {
    setTimeText(text);
    window.clearTimeout(debounce.current);
    debounce.current = window.setTimeout(() => {
      const t = parseTime(text);
      if (t) setTime(...t);
    }, TIME_DEBOUNCE_MS);
  }

  function commit() {
    changed.current = true;
    setCommitted(draft.from && !draft.to && mode === 'range' ? { from: draft.from, to: draft.from } : draft);
    close();
  }

  function clear() {
    changed.current = true;
    setDraft({ from: null, to: null });
    setCommitted({ from: null, to: null });
    close();
  }

  function onGridKey(e: KeyboardEvent) {
    const moves: Record<string, () => Date> = {
      ArrowLeft: () => addDays(focus, -1), ArrowRight: () => addDays(focus, 1),
      ArrowUp: () => addDays(focus, -7), ArrowDown: () => addDays(focus, 7),
      PageUp: () => moveMonth(focus, e.shiftKey ? -12 : -1), PageDown: () => moveMonth(focus, e.shiftKey ? 12 : 1),
      Home: () => addDays(focus, -((focus.getDay() - ws + 7) % 7)),
      End: () => addDays(focus, 6 - ((focus.getDay() - ws + 7) % 7)),
    };
    if (moves[e.key]) {
      e.preventDefault();
      setFocus(clamp(moves[e.key](), min, max));
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      setDay(focus);
    }
  }

  function onDialogKey(e: KeyboardEvent) {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      close();
    }
  }

  const shown = ranged
    ? [committed.from, committed.to].map((d) => display(d, false, p.format)).filter(Boolean).join(' – ')
    : display(committed.from, withTime, p.format, p.seconds, p.hour12);
  const year = focus.getFullYear(), month = focus.getMonth();
  const dialogId = p.id + '-dialog';
  const animMs = reducedMotion() ? 0 : phase === 'closing' ? CLOSE_MS : OPEN_MS;
  const describedBy = [p.describedBy, p.error ? p.errorId : ''].filter(Boolean).join(' ') || undefined;

  return (
    <div className={ranged ? 'picker picker-ranged' : 'picker'} data-testid={p.testid}>
      <label htmlFor={p.id}>{p.label}</label>
      <div className="picker-field">
        <button
          type="button" id={p.id} ref={field} className="picker-value" aria-haspopup="dialog"
          aria-expanded={phase === 'open'} aria-controls={dialogId} aria-describedby={describedBy}
          aria-invalid={p.error ? true : undefined} onClick={() => (phase === 'closed' ? open() : close())}
          data-testid={p.testid ? p.testid + '-open' : undefined}
        >
          <span className={shown ? '' : 'muted'}>{shown || L.open}</span>
          <svg aria-hidden="true" focusable="false" className="icon picker-icon"><use href="#i-calendar" /></svg>
        </button>
      </div>
      {p.error && <p className="field-error" id={p.errorId} data-testid={'error-' + p.name}>{p.error}</p>}
      <input type="hidden" ref={hiddenFrom} name={p.name} value={toValue(committed.from, withTime, p.seconds)} />
      {ranged && p.nameTo && <input type="hidden" ref={hiddenTo} name={p.nameTo} value={toValue(committed.to, false)} />}
      {phase !== 'closed' && (
        <div
          id={dialogId} role="dialog" aria-modal="false" aria-label={L.dialog + ': ' + p.label}
          className={'picker-dialog ' + (phase === 'closing' ? 'picker-closing' : 'picker-opening')}
          style={{ animationDuration: animMs + 'ms' }} onKeyDown={onDialogKey}
          data-testid={p.testid ? p.testid + '-dialog' : undefined}
        >
          {ranged && (
            <p className="picker-range" aria-live="polite">
              <span>{L.from}: <strong data-testid="picker-from">{display(draft.from, false, p.format) || '—'}</strong></span>
              <span>{L.to}: <strong data-testid="picker-to">{display(draft.to, false, p.format) || '—'}</strong></span>
            </p>
          )}
          <div className="picker-head">
            <button type="button" className="btn btn-small" aria-label={view === 'years' ? L.prevYears : L.prevMonth}
              onClick={() => setFocus(view === 'years' ? moveMonth(focus, -12 * 21) : view === 'months' ? moveMonth(focus, -12) : moveMonth(focus, -1))}
              data-testid="picker-prev">‹</button>
            <button type="button" className="btn btn-small" aria-label={L.chooseMonth} onClick={() => setView(view === 'months' ? 'days' : 'months')}>
              {format(focus, 'LLLL', { locale: loc })}
            </button>
            <button type="button" className="btn btn-small" aria-label={L.chooseYear} onClick={() => setView(view === 'years' ? 'days' : 'years')}>
              {year}
            </button>
            <button type="button" className="btn btn-small" aria-label={view === 'years' ? L.nextYears : L.nextMonth}
              onClick={() => setFocus(view === 'years' ? moveMonth(focus, 12 * 21) : view === 'months' ? moveMonth(focus, 12) : moveMonth(focus, 1))}
              data-testid="picker-next">›</button>
          </div>
          {view === 'days' && (
            <table className="picker-grid" role="grid" ref={grid} aria-label={format(focus, 'LLLL yyyy', { locale: loc })} onKeyDown={onGridKey}>
              <thead>
                <tr>{weekdayNames(loc, ws).map((n, i) => <th key={i} scope="col" abbr={n}>{n}</th>)}</tr>
              </thead>
              <tbody>
                {monthGrid(year, month, ws).map((week, wi) => (
                  <tr key={wi}>
                    {week.map((d) => {
                      const selected = sameDay(d, draft.from) || sameDay(d, draft.to);
                      const disabled = outside(d, min, max);
                      const cls = ['picker-day', d.getMonth() !== month ? 'picker-other' : '', selected ? 'picker-selected' : '',
                        inRange(draft, d) ? 'picker-in-range' : '', sameDay(d, new Date()) ? 'picker-today' : ''].join(' ');
                      return (
                        <td key={d.getTime()} role="gridcell" aria-selected={selected}>
                          <button
                            type="button" className={cls} tabIndex={sameDay(d, focus) ? 0 : -1} disabled={disabled}
                            aria-label={format(d, 'PPPP', { locale: loc })} aria-pressed={selected}
                            data-date={format(d, 'yyyy-MM-dd')} onClick={() => setDay(d)}
                          >{d.getDate()}</button>
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {view === 'months' && (
            <table className="picker-grid picker-months" role="grid" aria-label={L.chooseMonth}>
              <tbody>
                {monthRows().map((row, i) => (
                  <tr key={i}>{row.map((mo) => (
                    <td key={mo} role="gridcell" aria-selected={mo === month}>
                      <button type="button" className={mo === month ? 'picker-selected' : ''}
                        onClick={() => { setFocus(new Date(year, mo, Math.min(focus.getDate(), 28))); setView('days'); }}>
                        {format(new Date(2023, mo, 1), 'LLL', { locale: loc })}
                      </button>
                    </td>))}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {view === 'years' && (
            <table className="picker-grid picker-years" role="grid" aria-label={L.chooseYear}>
              <tbody>
                {yearPage(year).map((row, i) => (
                  <tr key={i}>{row.map((y) => (
                    <td key={y} role="gridcell" aria-selected={y === year}>
                      <button type="button" className={y === year ? 'picker-selected' : ''}
                        onClick={() => { setFocus(new Date(y, month, Math.min(focus.getDate(), 28))); setView('months'); }}>{y}</button>
                    </td>))}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {withTime && (
            <fieldset className="picker-time">
              <legend>{L.time}</legend>
              {/* One way to enter the time: typed, as the field shows it (24-hour, or with am/pm). */}
              <label>
                <span className="sr-only">{L.time}</span>
                <input type="text" inputMode="text" className="picker-typed" value={timeText} size={11} autoComplete="off"
                  onChange={(e) => typedTime(e.target.value)} aria-label={L.time} data-testid="picker-time" />
              </label>
            </fieldset>
          )}
          <div className="picker-actions">
            {!p.required && <button type="button" className="btn" onClick={clear}>{L.clear}</button>}
            <button type="button" className="btn" onClick={close} data-testid="picker-cancel">{L.cancel}</button>
            <button type="button" className="btn btn-primary" onClick={commit} disabled={!draft.from} data-testid="picker-set">{L.set}</button>
          </div>
        </div>
      )}
    </div>
  );
}
