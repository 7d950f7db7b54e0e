// The dashboard on the home page in a real browser: the period picker with htmx (only the
// results are swapped and the address is kept in step), the same picker without
// JavaScript, the charts' accessible names and tables, and the "own records" scope.
// The demo tenant has 36 leads from the last 90 days, half of them created by the sales user.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, signIn, ADMIN, SALES } from './harness.mjs';

const DEMO_LEADS = 36;

let server;
let browser;

before(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
});

after(async () => {
  await Promise.allSettled([browser?.close(), server?.stop()]);
});

const figure = async (page, id) => (await page.textContent(`[data-testid=${id}] .stat-value`)).trim();

// sumOf adds up the counts of a chart's table (the numbers a screen reader gets).
const sumOf = (page, chart) => page.$$eval(`[data-testid=${chart}] table tbody td`,
  (tds) => tds.reduce((n, td) => n + Number(td.textContent.replace(/\D/g, '')), 0));

test('choosing a period swaps the dashboard results with htmx and records the address', async () => {
  const { context, page } = await newPage(browser);
  try {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    await page.locator('[data-testid=dashboard]').waitFor();
    // The existing counts stay on the page beside the dashboard.
    assert.match((await page.textContent('[data-testid=count-users]')).replace(/\s+/g, ' '), /\b2\b/);
    await page.evaluate(() => { window.__sameDocument = true; });

    await Promise.all([
      page.waitForResponse((r) => r.url().includes('period=all') && r.request().headers()['hx-target'] === 'dashboard-results'),
      page.selectOption('#dash-preset', 'all'),
    ]);
    await page.waitForFunction((n) => document.querySelector('[data-testid=dash-total] .stat-value')?.textContent.trim() === String(n), DEMO_LEADS);
    assert.equal(await page.evaluate(() => window.__sameDocument), true, 'no full page load');
    assert.equal(new URL(page.url()).searchParams.get('period'), 'all');
    // The charts agree with the figures.
    assert.equal(await sumOf(page, 'chart-stage'), DEMO_LEADS);
    assert.equal(await sumOf(page, 'chart-source'), DEMO_LEADS);
    assert.equal(await sumOf(page, 'chart-leads-time'), DEMO_LEADS);
    const won = Number(await figure(page, 'dash-won'));
    const lost = Number(await figure(page, 'dash-lost'));
    const open = Number(await figure(page, 'dash-open'));
    assert.equal(won + lost + open, DEMO_LEADS);
    // The dates of the custom range follow the period shown (the native inputs: the date
    // picker's bundle is loaded only once the field is used).
    assert.equal(await page.inputValue('#dash-to'), new Date().toISOString().slice(0, 10));
    assert.equal(await page.getAttribute('#dash-to', 'type'), 'date');
    assert.equal(await pickerRequested(page), false, 'the picker bundle is loaded on demand only');
  } finally {
    await context.close();
  }
});

// The picker's bundle, when the page has asked for it.
const pickerRequested = (page) => page.evaluate(() => performance.getEntriesByType('resource').some((r) => /\/picker-[^/]*\.js$/.test(r.name)));
const isoDay = (d) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
const ddmmyyyy = (iso) => iso.split('-').reverse().join('/');

// pickDay clicks a day in an open picker dialog, going back or forth by months to reach it.
async function pickDay(page, dialog, iso) {
  for (let i = 0; i < 36; i++) {
    const day = page.locator(`${dialog} button[data-date="${iso}"]`);
    if (await day.count()) return day.click();
    const first = await page.getAttribute(`${dialog} button[data-date]`, 'data-date');
    await page.click(`${dialog} [data-testid=${iso < first ? 'picker-prev' : 'picker-next'}]`);
  }
  throw new Error(`${iso} not reached`);
}

test('a period picked with the date picker updates the dashboard in place and the address', async () => {
  const { context, page } = await newPage(browser);
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/favicon|Failed to load resource/.test(m.text())) problems.push(m.text());
  });
  try {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    await page.locator('[data-testid=dashboard]').waitFor();
    await page.evaluate(() => { window.__sameDocument = true; });
    const before = await page.textContent('[data-testid=dash-showing]');

    // From and To show once "Custom range" is chosen; a click on the native date input then
    // opens the picker's dialog (its bundle comes then).
    assert.equal(await page.isVisible('#dash-from'), false, 'no From/To before a custom range is chosen');
    await Promise.all([
      page.waitForResponse((r) => r.url().includes('period=custom')),
      page.selectOption('#dash-preset', 'custom'),
    ]);
    await page.locator('#dash-from').waitFor({ state: 'visible' });
    await page.click('#dash-from');
    const dialog = '[data-testid=dash-range-dialog]';
    await page.locator(dialog).waitFor();
    assert.equal(await pickerRequested(page), true);
    assert.equal(await page.getAttribute(dialog, 'role'), 'dialog');
    assert.equal(await page.locator('#dash-from').getAttribute('aria-describedby'), 'dash-dates-hint', 'the hint describes the field');
    assert.equal(await page.locator(`${dialog} button:has-text("Effacer")`).count(), 0, 'a custom range has both ends: no Clear');

    const now = new Date();
    const from = isoDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() - 60));
    const to = isoDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() - 10));
    await pickDay(page, dialog, to);
    await pickDay(page, dialog, from);
    assert.equal((await page.textContent('[data-testid=picker-from]')).trim(), ddmmyyyy(from));
    assert.equal((await page.textContent('[data-testid=picker-to]')).trim(), ddmmyyyy(to));
    // Set applies it at once: "Custom range" is chosen and only the results are swapped.
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('period=custom') && r.request().headers()['hx-target'] === 'dashboard-results'),
      page.click(`${dialog} [data-testid=picker-set]`),
    ]);
    assert.equal(response.status(), 200);
    await page.waitForFunction((want) => document.querySelector('[data-testid=dash-showing]')?.textContent.includes(want), ddmmyyyy(from));
    const q = new URL(page.url()).searchParams;
    assert.deepEqual([q.get('period'), q.get('from'), q.get('to')], ['custom', from, to]);
    assert.equal(await page.inputValue('#dash-preset'), 'custom');
    assert.notEqual(await page.textContent('[data-testid=dash-showing]'), before);
    assert.match(await page.textContent('[data-testid=dash-showing]'), new RegExp(`${ddmmyyyy(from)}.*${ddmmyyyy(to)}`));
    // The figures are the server's for that range.
    const expected = await page.evaluate(async (url) => {
      const html = await (await fetch(url)).text();
      return new DOMParser().parseFromString(html, 'text/html').querySelector('[data-testid=dash-total] .stat-value').textContent.trim();
    }, `/home?period=custom&from=${from}&to=${to}`);
    assert.equal(await figure(page, 'dash-total'), expected);
    assert.equal(await sumOf(page, 'chart-stage'), Number(expected));

    // The dates came back out of band: the picker is mounted on them again, shows the range
    // and keeps the focus.
    const open = page.locator('[data-testid=dash-range-open]');
    await page.waitForFunction((want) => document.querySelector('[data-testid=dash-range-open]')?.textContent.startsWith(want),
      `${ddmmyyyy(from)} – ${ddmmyyyy(to)}`);
    await page.waitForFunction(() => document.activeElement?.id === 'dash-from');

    // A preset brings its own dates into the picker.
    await Promise.all([
      page.waitForResponse((r) => r.url().includes('period=all')),
      page.selectOption('#dash-preset', 'all'),
    ]);
    await page.waitForFunction((n) => document.querySelector('[data-testid=dash-total] .stat-value')?.textContent.trim() === String(n), DEMO_LEADS);
    await page.waitForFunction((want) => document.querySelector('[data-testid=dash-range-open]')?.textContent.includes(want),
      `– ${ddmmyyyy(isoDay(new Date()))}`);
    assert.equal(await open.count(), 1);
    assert.equal(await page.evaluate(() => window.__sameDocument), true, 'no full page load');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the period fields work without JavaScript', async () => {
  const { context, page } = await newPage(browser, { javaScriptEnabled: false });
  try {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    await page.selectOption('#dash-preset', 'all');
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }),
      page.click('[data-testid=dash-submit]'),
    ]);
    assert.equal(new URL(page.url()).searchParams.get('period'), 'all');
    assert.equal(await figure(page, 'dash-total'), String(DEMO_LEADS));

    // A custom range is two native date inputs with the same parameters; a reversed one is
    // refused in the results.
    assert.equal(await page.getAttribute('#dash-from', 'type'), 'date');
    // From and To only show for a custom range, without JavaScript too (CSS :has).
    assert.equal(await page.isVisible('#dash-from'), false);
    await page.selectOption('#dash-preset', 'custom');
    assert.equal(await page.isVisible('#dash-from'), true);
    assert.equal(await page.isVisible('#dash-to'), true);
    await page.fill('#dash-from', '2001-01-02');
    await page.fill('#dash-to', '2001-01-01');
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }),
      page.click('[data-testid=dash-submit]'),
    ]);
    const q = new URL(page.url()).searchParams;
    assert.deepEqual([q.get('period'), q.get('from'), q.get('to')], ['custom', '2001-01-02', '2001-01-01']);
    await page.locator('[data-testid=dash-error] [data-testid=error-summary]').waitFor();
    assert.equal(await page.getAttribute('#dash-to', 'aria-invalid'), 'true');
  } finally {
    await context.close();
  }
});

test('each chart is an image with a name and a description, and its figures in a table', async () => {
  const { context, page } = await newPage(browser);
  try {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    await page.goto(new URL('/home?period=all', server.url).href);
    for (const chart of ['chart-stage', 'chart-source', 'chart-status', 'chart-leads-time', 'chart-clients-time']) {
      const svg = page.locator(`[data-testid=${chart}] svg[role=img]`);
      assert.equal(await svg.count(), 1, `${chart}: one SVG image`);
      const [title, desc] = (await svg.getAttribute('aria-labelledby')).split(' ');
      assert.ok((await page.textContent(`#${title}`)).trim().length > 0, `${chart}: a title`);
      assert.ok((await page.textContent(`#${desc}`)).trim().length > 0, `${chart}: a description`);
      assert.ok(await page.locator(`[data-testid=${chart}] table caption`).count() === 1, `${chart}: a table with a caption`);
    }
  } finally {
    await context.close();
  }
});

test('a sales user sees the figures of their own leads', async () => {
  const { context, page } = await newPage(browser);
  try {
    await signIn(page, server.url, SALES.email, SALES.password);
    await page.goto(new URL('/home?period=all', server.url).href);
    assert.equal(await figure(page, 'dash-total'), String(DEMO_LEADS / 2));
    assert.equal(await page.locator('[data-testid=dash-clients]').count(), 0, 'no client figures without a view on clients');
  } finally {
    await context.close();
  }
});
