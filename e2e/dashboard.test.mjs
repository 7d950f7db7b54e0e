// The dashboard on the home page in a real browser: the period picker with htmx (only the
// results are swapped and the address is kept in step), the same picker without
// JavaScript, the charts' accessible names and tables, and the "own records" scope.
// The demo tenant has 36 leads from the last 90 days, half of them created by the sales user.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, login, ADMIN, SALES } from './harness.mjs';

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
    await login(page, server.url, ADMIN.email, ADMIN.password);
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
    // The dates of the custom range follow the period shown.
    assert.equal(await page.inputValue('#dash-to'), new Date().toISOString().slice(0, 10));

    // A custom range is typed and submitted; an empty one is refused in the results.
    await Promise.all([
      page.waitForResponse((r) => r.url().includes('period=custom')),
      page.selectOption('#dash-preset', 'custom'),
    ]);
    await page.waitForLoadState('networkidle');
    await page.fill('#dash-from', '2001-01-02');
    await page.fill('#dash-to', '2001-01-01');
    await Promise.all([
      page.waitForResponse((r) => r.url().includes('from=2001-01-02')),
      page.click('[data-testid=dash-submit]'),
    ]);
    await page.locator('[data-testid=dash-error] [data-testid=error-summary]').waitFor();
    assert.equal(await page.evaluate(() => window.__sameDocument), true);
  } finally {
    await context.close();
  }
});

test('the picker works without JavaScript', async () => {
  const { context, page } = await newPage(browser, { javaScriptEnabled: false });
  try {
    await login(page, server.url, ADMIN.email, ADMIN.password);
    await page.selectOption('#dash-preset', 'all');
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }),
      page.click('[data-testid=dash-submit]'),
    ]);
    assert.equal(new URL(page.url()).searchParams.get('period'), 'all');
    assert.equal(await figure(page, 'dash-total'), String(DEMO_LEADS));
  } finally {
    await context.close();
  }
});

test('each chart is an image with a name and a description, and its figures in a table', async () => {
  const { context, page } = await newPage(browser);
  try {
    await login(page, server.url, ADMIN.email, ADMIN.password);
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
    await login(page, server.url, SALES.email, SALES.password);
    await page.goto(new URL('/home?period=all', server.url).href);
    assert.equal(await figure(page, 'dash-total'), String(DEMO_LEADS / 2));
    assert.equal(await page.locator('[data-testid=dash-clients]').count(), 0, 'no client figures without a view on clients');
  } finally {
    await context.close();
  }
});
