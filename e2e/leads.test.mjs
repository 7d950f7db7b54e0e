// Admin lead pages in a real browser: search as you type, sort and filter with the address
// following, a drag on the pipeline board that lands in the lead's journey, a bulk change of
// stage, and what the /leads page costs on the wire. One server (demo data: 36 leads) and one
// browser for the file; every test opens its own context.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, signIn, measureLoad, ADMIN } from './harness.mjs';

const PAGE_WEIGHT_BUDGET = 40 * 1024; // bytes on the wire for /leads after sign-in, cold cache

let server;
let browser;

before(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
});

after(async () => {
  await Promise.allSettled([browser?.close(), server?.stop()]);
});

// signedIn opens a context signed in as the demo admin, failing on any script error or CSP
// violation the page reports.
async function signedIn() {
  const { context, page } = await newPage(browser);
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/favicon|Failed to load resource/.test(m.text())) problems.push(m.text());
  });
  await signIn(page, server.url, ADMIN.email, ADMIN.password);
  return { context, page, problems };
}

const href = (p) => new URL(p, server.url).href;
const query = (page) => new URL(page.url()).searchParams;

// until polls fn until it returns something truthy.
async function until(fn, what, timeout = 10_000) {
  const end = Date.now() + timeout;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const rowTexts = (page, col) => page.$$eval(`[data-testid=lead-table] tbody tr td:nth-child(${col})`, (tds) => tds.map((td) => td.textContent.trim()));

test('search as you type updates the table and the address', async () => {
  const { context, page, problems } = await signedIn();
  try {
    await page.goto(href('/leads'));
    const count = page.locator('[data-testid=lead-count]');
    assert.match(await count.textContent(), /36/);
    // Typing swaps only the results region; the page itself is not reloaded.
    await page.evaluate(() => { window.__sameDocument = true; });
    await page.locator('[data-testid=lead-search]').pressSequentially('acme', { delay: 40 });
    await until(async () => query(page).get('search') === 'acme', 'the address to hold the search');
    await until(async () => /^2\b/.test((await count.textContent()).trim()), 'the count of the search');
    const companies = await rowTexts(page, 4);
    assert.ok(companies.length === 2 && companies.every((c) => c === 'Acme Textiles'), `companies: ${companies}`);
    assert.equal(await page.evaluate(() => window.__sameDocument), true, 'the search reloaded the page');
    // Ticking a row moves the focus out of the search box: the ticks stay (no second swap).
    const requests = [];
    page.on('request', (r) => { if (new URL(r.url()).pathname === '/leads') requests.push(r.url()); });
    const first = page.locator('[data-testid=lead-table] tbody input[type=checkbox]').first();
    await first.check();
    await page.waitForTimeout(600);
    assert.equal(await first.isChecked(), true, 'the tick was kept');
    assert.deepEqual(requests, [], 'leaving the search box asked for the list again');
    // The address gives the same view on a reload.
    await page.reload();
    assert.equal(await page.inputValue('[data-testid=lead-search]'), 'acme');
    assert.match(await page.locator('[data-testid=lead-count]').textContent(), /^\s*2\b/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('sorting by a column and filtering by stage keep the state in the address', async () => {
  const { context, page, problems } = await signedIn();
  try {
    await page.goto(href('/leads'));
    await page.evaluate(() => { window.__sameDocument = true; });
    await page.click('th a[data-sort=company_name]');
    await until(async () => query(page).get('sort') === 'company_name' && query(page).get('order') === 'asc', 'the sort in the address');
    await until(async () => (await page.getAttribute('th[aria-sort]', 'aria-sort')) === 'ascending', 'the sorted header');
    const companies = await rowTexts(page, 4);
    assert.deepEqual(companies, [...companies].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())), 'sorted by company');
    assert.equal(companies[0], 'Acme Textiles');

    // A stage filter: the rows follow, and the sort stays.
    const stage = await page.$eval('#f-stage-id option:nth-child(3)', (o) => ({ value: o.value, label: o.textContent.trim() }));
    await page.selectOption('#f-stage-id', stage.value);
    await until(async () => query(page).get('stage_id') === stage.value, 'the stage in the address');
    await until(async () => {
      const stages = await rowTexts(page, 7);
      return stages.length > 0 && stages.every((s) => s === stage.label);
    }, 'only leads of the stage');
    assert.equal(query(page).get('sort'), 'company_name');
    const filtered = await rowTexts(page, 4);
    assert.deepEqual(filtered, [...filtered].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())), 'still sorted');

    // Clicking the header again sorts the other way, still filtered.
    await page.click('th a[data-sort=company_name]');
    await until(async () => query(page).get('order') === 'desc', 'the descending sort');
    assert.equal(query(page).get('stage_id'), stage.value);
    assert.equal(await page.evaluate(() => window.__sameDocument), true, 'sorting reloaded the page');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('dragging a card to another column moves the lead and lands in its journey', async () => {
  const { context, page, problems } = await signedIn();
  try {
    await page.goto(href('/leads/board'));
    const columns = page.locator('.board-column');
    assert.ok(await columns.count() >= 2);
    const from = columns.nth(0);
    const to = columns.nth(1);
    const toName = (await to.locator('.column-title').evaluate((h) => h.firstChild.textContent)).trim();
    const toStage = await to.locator('.board-cards').getAttribute('data-stage-id');
    const card = from.locator('.board-card').first();
    const id = await card.getAttribute('data-lead-id');
    const before = Number(await to.locator('.column-count').getAttribute('data-count'));

    await card.locator('.card-title').dragTo(to.locator('.board-cards'));
    await until(async () => (await page.locator(`.board-card[data-lead-id="${id}"]`).getAttribute('data-moved')) === toStage,
      'the move to be saved');
    assert.equal(await to.locator(`.board-card[data-lead-id="${id}"]`).count(), 1, 'the card is in the new column');
    assert.equal(Number(await to.locator('.column-count').getAttribute('data-count')), before + 1);
    assert.equal(await page.locator(`[data-testid=move-${id}]`).inputValue(), toStage, "the card's stage select follows");
    await page.locator('.toast-success').first().waitFor({ state: 'visible' });

    // The lead's page shows the move in its journey, newest first.
    await page.goto(href(`/leads/${id}`));
    const first = page.locator('[data-testid=journey] > li').first();
    assert.equal(await first.getAttribute('data-action'), 'stage');
    assert.equal((await first.locator('.after').textContent()).trim(), toName);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a failed drop puts the card back and shows an error', async () => {
  const { context, page } = await signedIn();
  try {
    await page.goto(href('/leads/board'));
    await page.route('**/v1/api/lead/update-stage-customer-lead/*', (route) => route.fulfill({
      status: 422, contentType: 'application/json', body: JSON.stringify({ status: 422, message: 'not_allowed here' }),
    }));
    const from = page.locator('.board-column').nth(0);
    const to = page.locator('.board-column').nth(2);
    const card = from.locator('.board-card').first();
    const id = await card.getAttribute('data-lead-id');
    await card.locator('.card-title').dragTo(to.locator('.board-cards'));
    const error = page.locator('.toast-error').first();
    await error.waitFor({ state: 'visible' });
    assert.equal((await error.textContent()).trim(), 'Not Allowed Here');
    assert.equal(await from.locator(`.board-card[data-lead-id="${id}"]`).count(), 1, 'the card is back');
  } finally {
    await context.close();
  }
});

test('a bulk change of stage moves the selected leads', async () => {
  const { context, page, problems } = await signedIn();
  try {
    await page.goto(href('/leads?sort=id&order=asc'));
    const ids = await page.$$eval('[data-testid=lead-table] tbody tr', (trs) => trs.slice(0, 3).map((tr) => tr.dataset.leadId));
    for (const id of ids) await page.check(`#sel-${id}`);
    const stage = await page.$eval('#bulk-lead_stage_id option:last-child', (o) => ({ value: o.value, label: o.textContent.trim() }));
    const already = [];
    for (const id of ids) already.push((await page.textContent(`tr[data-lead-id="${id}"] td:nth-child(7)`)).trim() === stage.label);
    const moving = already.filter((a) => !a).length;
    await page.selectOption('#bulk-lead_stage_id', stage.value);
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }),
      page.click('[data-testid=bulk-apply-lead_stage_id]'),
    ]);
    // Back on the same view, with a toast.
    assert.equal(new URL(page.url()).search, '?order=asc&sort=id');
    // The demo tenant speaks French by default: check the count, not the words.
    assert.match(await page.locator('#toasts').textContent(), new RegExp(`\\b${moving}\\b`));
    for (const id of ids) {
      const cell = page.locator(`tr[data-lead-id="${id}"] td:nth-child(7)`);
      assert.equal((await cell.textContent()).trim(), stage.label);
    }
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// The picker's bundle, when the page has asked for it.
const pickerRequested = (page) => page.evaluate(() => performance.getEntriesByType('resource').some((r) => /\/picker-[^/]*\.js$/.test(r.name)));
const isoDay = (d) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

test('the created-date range is picked with the picker, by keyboard: the table and the address follow', async () => {
  const { context, page, problems } = await signedIn();
  try {
    // Reach the list by the side navigation: htmx swaps it into the page, and the picker
    // must come up on that swapped content too.
    await page.evaluate(() => { window.__sameDocument = true; });
    await page.click('.sidenav a[href="/leads"]');
    await page.locator('#lead-filters').waitFor();
    assert.equal(new URL(page.url()).pathname, '/leads');
    const count = page.locator('[data-testid=lead-count]');
    assert.match(await count.textContent(), /\b36\b/);
    // Until the field is used, it is the two native date inputs and the bundle is not loaded.
    assert.equal(await page.getAttribute('#f-from', 'type'), 'date');
    assert.equal(await page.getAttribute('#f-to', 'type'), 'date');
    assert.equal(await pickerRequested(page), false, 'the picker bundle is loaded on demand only');

    // Tabbing into the field loads the picker, which takes the focus over.
    await page.focus('#f-owner-id');
    await page.keyboard.press('Tab');
    const open = page.locator('[data-testid=created-range-open]');
    await open.waitFor();
    await until(() => page.evaluate(() => document.activeElement?.dataset.testid === 'created-range-open'), 'the focus on the picker');
    assert.equal(await pickerRequested(page), true);
    assert.equal(await page.locator('#f-from').getAttribute('aria-haspopup'), 'dialog', 'the field keeps its id');
    assert.equal(await page.locator('label[for=f-from]').textContent(), 'Créé entre', 'labelled, in the tenant language');

    // Enter opens the dialog on today; Enter picks it, PageUp goes a month back, Enter picks
    // that day: the range is ordered. Tab reaches Set.
    await page.keyboard.press('Enter');
    const dialog = page.locator('[data-testid=created-range-dialog]');
    await dialog.waitFor();
    assert.equal(await dialog.getAttribute('role'), 'dialog');
    await page.keyboard.press('Enter');
    await page.keyboard.press('PageUp');
    await page.keyboard.press('Enter');
    for (let i = 0; i < 3; i++) await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'picker-set');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });

    // The form applies the range at once: the address and the table follow, in place.
    const today = new Date();
    const monthAgo = new Date(today.getFullYear(), today.getMonth() - 1, today.getDate());
    if (monthAgo.getMonth() === today.getMonth()) monthAgo.setDate(0); // 31 March → 28/29 February
    const [from, to] = [isoDay(monthAgo), isoDay(today)];
    await until(async () => query(page).get('from') === from && query(page).get('to') === to, 'the range in the address');
    await until(async () => !/\b36\b/.test(await count.textContent()), 'the count of the range');
    const shown = Number((await count.textContent()).match(/\d+/)[0]);
    const days = await page.$$eval('[data-testid=lead-table] tbody tr time[datetime]', (ts) => ts.map((t) => t.getAttribute('datetime')));
    assert.ok(days.length > 0 && days.length <= shown, `rows: ${days.length}, count ${shown}`);
    assert.ok(days.every((d) => d >= from && d <= to), `created days ${days} within ${from}..${to}`);
    assert.equal(await page.evaluate(() => window.__sameDocument), true, 'picking reloaded the page');
    assert.match(await open.textContent(), /^\d\d\/\d\d\/\d{4} – \d\d\/\d\d\/\d{4}/);
    await until(() => page.evaluate(() => document.activeElement?.dataset.testid === 'created-range-open'), 'the focus back on the field');

    // The address gives the same list on a reload; the native inputs hold the range.
    await page.reload();
    assert.equal(await page.inputValue('#f-from'), from);
    assert.equal(await page.inputValue('#f-to'), to);
    assert.equal(Number((await count.textContent()).match(/\d+/)[0]), shown);

    // Clear takes the filter away again (a mouse this time: a click on the native input
    // opens the picker's dialog, not the browser's).
    const box = await page.locator('#f-to').boundingBox();
    await page.mouse.click(box.x + 10, box.y + box.height / 2);
    await dialog.waitFor();
    await page.click('[data-testid=created-range-dialog] button:has-text("Effacer")');
    await until(async () => !query(page).get('from') && !query(page).get('to'), 'no range in the address');
    await until(async () => /\b36\b/.test(await count.textContent()), 'every lead again');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('without JavaScript the created-date range is two date inputs with the same parameters', async () => {
  const { context, page } = await newPage(browser, { javaScriptEnabled: false });
  try {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    await page.goto(href('/leads'));
    const to = isoDay(new Date());
    const from = isoDay(new Date(Date.now() - 30 * 86400000));
    await page.fill('#f-from', from);
    await page.fill('#f-to', to);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#lead-filters button[type=submit]')]);
    assert.equal(query(page).get('from'), from);
    assert.equal(query(page).get('to'), to);
    const days = await page.$$eval('[data-testid=lead-table] tbody tr time[datetime]', (ts) => ts.map((t) => t.getAttribute('datetime')));
    assert.ok(days.length > 0 && days.every((d) => d >= from && d <= to), `created days ${days} within ${from}..${to}`);
    assert.equal(await page.getAttribute('#f-from', 'type'), 'date');
  } finally {
    await context.close();
  }
});

test(`page weight: /leads after sign-in is at most ${PAGE_WEIGHT_BUDGET} bytes on the wire (cold cache)`, async () => {
  const { context, page } = await signedIn();
  try {
    const { totalBytes, byType, requests } = await measureLoad(context, page, href('/leads'));
    console.log(`page weight /leads (admin, 36 leads, cold cache, compressed): total ${totalBytes} B; by type ${JSON.stringify(byType)}`);
    for (const r of requests) {
      console.log(`  ${r.type.padEnd(10)} ${r.status} ${String(r.bytes).padStart(7)} B (headers ${r.headerBytes} B)  ${new URL(r.url).pathname}`);
    }
    assert.equal(new URL(page.url()).pathname, '/leads', 'still signed in when measuring');
    assert.ok(!requests.some((r) => /\/picker-[^/]*\.js$/.test(r.url)), 'the picker bundle waits for the date field to be used');
    assert.ok(totalBytes <= PAGE_WEIGHT_BUDGET, `/leads transferred ${totalBytes} B, budget ${PAGE_WEIGHT_BUDGET} B`);
  } finally {
    await context.close();
  }
});
