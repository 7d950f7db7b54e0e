// The date-time picker: its pure logic (islands/picker/logic.ts, bundled here with esbuild
// for node) and, in a real browser, picking a range on the notifications page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { ROOT, startServer, launchBrowser, newPage, signIn, ADMIN } from './harness.mjs';

let logic;
let tmp;
let server;
let browser;

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'crm-picker-'));
  const out = join(tmp, 'logic.mjs');
  await esbuild.build({ entryPoints: [join(ROOT, 'islands/picker/logic.ts')], bundle: true, format: 'esm', platform: 'node', outfile: out, logLevel: 'warning' });
  logic = await import(pathToFileURL(out).href);
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
});

after(async () => {
  await Promise.allSettled([browser?.close(), server?.stop(), tmp && rm(tmp, { recursive: true, force: true })]);
});

const d = (y, m, day) => new Date(y, m - 1, day);
const iso = (x) => (x ? logic.toValue(x, false) : null);

test('spec constants', () => {
  assert.equal(logic.WEEKS_SHOWN * logic.DAYS_PER_WEEK, 42);
  assert.equal(logic.YEARS_SHOWN, 21);
  assert.equal(logic.TIME_DEBOUNCE_MS, 750);
  assert.equal(logic.OPEN_MS, 400);
  assert.equal(logic.CLOSE_MS, 100);
  assert.equal(logic.DEFAULT_FORMAT, 'dd/MM/yyyy');
  assert.deepEqual([...logic.MODES], ['single', 'range', 'rangeFrom', 'rangeTo']);
  assert.ok(logic.isMode('rangeTo') && !logic.isMode('multiple'));
});

test('week start comes from the locale', () => {
  assert.equal(logic.weekStart('en_US'), 0);
  assert.equal(logic.weekStart('fr_FR'), 1);
  assert.equal(logic.weekStart('de-DE'), 1);
  assert.equal(logic.weekStart('en_AU'), 1);
  assert.equal(logic.weekStart('xx_XX'), 0, 'unknown locales fall back to en_US');
  // November 2026 starts on a Sunday.
  const us = logic.monthGrid(2026, 10, 0);
  assert.equal(us.length, 6);
  assert.ok(us.every((w) => w.length === 7));
  assert.equal(iso(us[0][0]), '2026-11-01');
  const fr = logic.monthGrid(2026, 10, 1);
  assert.equal(iso(fr[0][0]), '2026-10-26');
  assert.equal(fr[0][0].getDay(), 1);
  assert.equal(logic.weekdayNames(logic.dateLocale('fr_FR'), 1)[0].toLowerCase(), 'lu');
});

test('range ordering: an end before the start swaps them', () => {
  let r = { from: null, to: null };
  r = logic.pick('range', r, d(2026, 5, 20));
  assert.deepEqual([iso(r.from), iso(r.to)], ['2026-05-20', null]);
  r = logic.pick('range', r, d(2026, 5, 10));
  assert.deepEqual([iso(r.from), iso(r.to)], ['2026-05-10', '2026-05-20']);
  r = logic.pick('range', r, d(2026, 6, 1));
  assert.deepEqual([iso(r.from), iso(r.to)], ['2026-06-01', null], 'a pick after a full range starts a new one');
  r = logic.pick('rangeTo', { from: d(2026, 5, 10), to: null }, d(2026, 5, 3));
  assert.deepEqual([iso(r.from), iso(r.to)], ['2026-05-03', '2026-05-10']);
  r = logic.pick('rangeFrom', { from: null, to: d(2026, 5, 10) }, d(2026, 5, 12));
  assert.deepEqual([iso(r.from), iso(r.to)], ['2026-05-10', '2026-05-12']);
  r = logic.pick('single', { from: d(2026, 5, 10), to: d(2026, 5, 11) }, d(2026, 5, 12));
  assert.deepEqual([iso(r.from), r.to], ['2026-05-12', null]);
  assert.ok(logic.inRange({ from: d(2026, 5, 10), to: d(2026, 5, 12) }, d(2026, 5, 11)));
});

test('min and max clamp dates and disable days', () => {
  const min = d(2026, 5, 10), max = d(2026, 5, 20);
  assert.equal(iso(logic.clamp(d(2026, 5, 1), min, max)), '2026-05-10');
  assert.equal(iso(logic.clamp(d(2026, 6, 1), min, max)), '2026-05-20');
  assert.equal(iso(logic.clamp(d(2026, 5, 15), min, max)), '2026-05-15');
  assert.equal(iso(logic.clamp(d(2026, 5, 15), null, null)), '2026-05-15');
  assert.ok(logic.outside(d(2026, 5, 9), min, max));
  assert.ok(!logic.outside(new Date(2026, 4, 20, 23, 59), min, max), 'the max day itself is allowed');
});

test('year view, multi-year view and time', () => {
  const months = logic.monthRows();
  assert.equal(months.length, 4);
  assert.ok(months.every((r) => r.length === 3));
  const years = logic.yearPage(2026);
  assert.equal(years.length, 7);
  assert.ok(years.every((r) => r.length === 3));
  assert.equal(years[0][0], 2016);
  assert.equal(years[6][2], 2036);
  assert.deepEqual(logic.clampTime(24, 60, -1), [23, 59, 0]);
  assert.deepEqual(logic.parseTime('7:5'), [7, 5, 0]);
  assert.deepEqual(logic.parseTime('25:61:61'), [23, 59, 59]);
  assert.equal(logic.parseTime('soon'), null);
  assert.deepEqual(logic.to12(0), { hour: 12, pm: false });
  assert.deepEqual(logic.to12(13), { hour: 1, pm: true });
  assert.equal(logic.from12(12, false), 0);
  assert.equal(logic.from12(12, true), 12);
  assert.equal(logic.from12(1, true), 13);
  const t = new Date(2026, 0, 2, 14, 5, 9);
  assert.equal(logic.display(t, false), '02/01/2026');
  assert.equal(logic.display(t, true), '02/01/2026 14:05');
  assert.equal(logic.display(t, true, undefined, true, true), '02/01/2026 02:05:09 PM');
  assert.equal(logic.toValue(t, true), '2026-01-02T14:05');
  assert.equal(iso(logic.fromValue('2026-01-02T14:05')), '2026-01-02');
  assert.equal(logic.fromValue('nope'), null);
});

test('pick a date range with the picker in a browser', async () => {
  const { context, page } = await newPage(browser);
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  try {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    await page.goto(new URL('/notifications', server.url).href);
    const open = page.locator('[data-testid=due-range-open]');
    await open.waitFor();
    // Keyboard: the dialog opens on the current day, arrows move, Escape closes.
    await open.click();
    const dialog = page.locator('[data-testid=due-range-dialog]');
    assert.equal(await dialog.getAttribute('role'), 'dialog');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await open.click();
    const now = new Date();
    const ym = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}`;
    // The end first: picking an end before the start swaps them.
    await page.click(`[data-testid=due-range-dialog] button[data-date="${ym}-20"]`);
    await page.click(`[data-testid=due-range-dialog] button[data-date="${ym}-10"]`);
    assert.equal(await page.getAttribute(`button[data-date="${ym}-10"]`, 'aria-pressed'), 'true');
    assert.match(await page.locator('[data-testid=picker-from]').textContent(), new RegExp(`^10/`));
    assert.match(await page.locator('[data-testid=picker-to]').textContent(), new RegExp(`^20/`));
    await page.click('[data-testid=picker-set]');
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await page.inputValue('input[type=hidden][name=from]'), `${ym}-10`);
    assert.equal(await page.inputValue('input[type=hidden][name=to]'), `${ym}-20`);
    await Promise.all([page.waitForNavigation(), page.click('[data-testid=notifications-apply]')]);
    const q = new URL(page.url()).searchParams;
    assert.equal(q.get('from'), `${ym}-10`);
    assert.equal(q.get('to'), `${ym}-20`);
    // The field shows the range in dd/MM/yyyy after the reload.
    assert.match(await open.textContent(), /^10\/\d\d\/\d{4} – 20\/\d\d\/\d{4}/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the reminder form posts the picked date-time', async () => {
  const { context, page } = await newPage(browser);
  try {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    await page.goto(new URL('/leads', server.url).href);
    const lead = await page.$eval('[data-testid=lead-table] tbody tr a[href^="/leads/"]', (a) => a.getAttribute('href'));
    await page.goto(new URL(lead, server.url).href);
    await page.fill('#f-title', 'Follow up');
    await page.focus('#f-due-at'); // the picker's bundle comes on intent
    const open = page.locator('[data-testid=due-picker-open]');
    await open.waitFor();
    await open.click();
    // Keyboard: the focused day moves with the arrows and Enter picks it.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    // One way to enter the time: the typed box, no Hours and Minutes spinners beside it.
    assert.deepEqual(await page.$$eval('.picker-time input', (els) => els.map((e) => e.getAttribute('type'))), ['text']);
    assert.equal(await page.locator('.picker-time input[type=number]').count(), 0);
    await page.fill('[data-testid=picker-time]', '09:30');
    await page.waitForTimeout(900); // the typed time is debounced 750 ms
    await page.click('[data-testid=picker-set]');
    const tomorrow = new Date(Date.now() + 86400000);
    const day = `${tomorrow.getFullYear()}-${String(tomorrow.getMonth() + 1).padStart(2, '0')}-${String(tomorrow.getDate()).padStart(2, '0')}`;
    assert.equal(await page.inputValue('input[type=hidden][name=due_at]'), `${day}T09:30`);
    await Promise.all([page.waitForNavigation(), page.click('[data-testid=reminder-save]')]);
    const due = await page.locator('[data-testid=reminder-due]').first().getAttribute('datetime');
    assert.equal(due, `${day}T09:30:00Z`);
  } finally {
    await context.close();
  }
});

test('the picker comes up on content htmx swaps in, its bundle loaded by the admin shell', async () => {
  const { context, page } = await newPage(browser);
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  try {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    const loaded = () => page.evaluate(() => performance.getEntriesByType('resource').filter((r) => /\/picker-[^/]*\.js$/.test(r.name)).length);
    assert.equal(await loaded(), 0, 'no picker on /home until its field is used');
    // htmx brings /notifications into #main; htmx runs no script of the swapped content, so
    // the shell's loader brings the bundle in for the field (a plain one: as soon as it is there).
    await page.evaluate(() => window.htmx.ajax('GET', '/notifications?from=2026-01-05&to=2026-01-09', { target: '#main', swap: 'innerHTML' }));
    const open = page.locator('[data-testid=due-range-open]');
    await open.waitFor();
    assert.match(await open.textContent(), /^05\/01\/2026 – 09\/01\/2026/, 'the island starts from the native inputs');
    assert.equal(await loaded(), 1, 'the bundle is loaded once');
    await open.click();
    await page.locator('[data-testid=due-range-dialog]').waitFor();
    // Swapping the page in again mounts the new field; the old one is gone.
    await page.evaluate(() => window.htmx.ajax('GET', '/notifications', { target: '#main', swap: 'innerHTML' }));
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=due-range-open]').length === 1
      && !document.querySelector('[data-testid=due-range-dialog]') && !document.querySelector('input[type=date][name=from]'));
    assert.equal(await loaded(), 1);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
