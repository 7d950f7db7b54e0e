// The client list in a real browser: search as you type swaps only the results and keeps the
// address in step; two clients selected and deleted in bulk, through the confirmation step;
// the created-date range picked with the picker (keyboard and mouse) and, without
// JavaScript, typed in the native date inputs; and what /clients costs on the wire. One
// server (the demo tenant, plus clients made here through the API) and one browser for the file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, signIn, measureLoad, ADMIN } from './harness.mjs';

const PAGE_WEIGHT_BUDGET = 40 * 1024; // bytes on the wire for /clients after sign-in, cold cache

let server;
let browser;

before(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
});

after(async () => {
  await Promise.allSettled([browser?.close(), server?.stop()]);
});

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

// signedIn opens a context signed in as the demo admin, failing on any script error or CSP
// violation the page reports; options go to the browser context.
async function signedIn(options = {}) {
  const { context, page } = await newPage(browser, options);
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/favicon|Failed to load resource/.test(m.text())) problems.push(m.text());
  });
  await signIn(page, server.url, ADMIN.email, ADMIN.password);
  return { context, page, problems };
}

// addClient creates a client through the JSON API with the context's session.
async function addClient(context, name, company) {
  const email = `${name.toLowerCase().replace(/\W+/g, '.')}@example.com`;
  const res = await context.request.post(href('/v1/api/client/create-customer-client'), {
    data: { customer_name: name, company_name: company, company_email: email, company_dial_code: '+91', company_phone_number: '9876543210' },
  });
  assert.equal(res.status(), 201, await res.text());
  return (await res.json()).data.id;
}

const countText = (page) => page.locator('[data-testid=client-count]').textContent();
const rowIDs = (page) => page.$$eval('[data-testid=client-table] tbody tr', (trs) => trs.map((tr) => tr.dataset.clientId));

test('search as you type, then delete the matches in bulk after a confirmation', async () => {
  const { context, page, problems } = await signedIn();
  try {
    const doomed = [await addClient(context, 'Zephyr One', 'Zephyr Labs'), await addClient(context, 'Zephyr Two', 'Zephyr Labs')];
    const kept = [await addClient(context, 'Ada Lovelace', 'Analytical Engines'), await addClient(context, 'Grace Hopper', 'Compilers Inc')];
    await page.goto(href('/clients'));
    assert.match(await countText(page), /^\s*4\b/);

    // Typing swaps only the results region; the page itself is not reloaded.
    await page.evaluate(() => { window.__sameDocument = true; });
    await page.locator('[data-testid=client-search]').pressSequentially('zephyr', { delay: 40 });
    await until(async () => query(page).get('search') === 'zephyr', 'the address to hold the search');
    await until(async () => /^\s*2\b/.test(await countText(page)), 'the count of the search');
    assert.deepEqual((await rowIDs(page)).sort(), doomed.map(String).sort());
    assert.equal(await page.evaluate(() => window.__sameDocument), true, 'the search reloaded the page');

    // Select both and delete: first a confirmation listing them, nothing deleted yet.
    for (const id of doomed) await page.check(`#sel-${id}`);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('[data-testid=client-bulk-delete]')]);
    const items = await page.$$eval('[data-testid=confirm-items] a', (as) => as.map((a) => a.getAttribute('href')).sort());
    assert.deepEqual(items, doomed.map((id) => `/clients/${id}`).sort());
    const still = await context.request.get(href(`/v1/api/client/view-customer-client/${doomed[0]}`));
    assert.equal(still.status(), 200, 'deleted before the confirmation');

    // Confirm: back on the same view, with a toast, and the matches gone.
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('[data-testid=confirm-submit]')]);
    assert.equal(new URL(page.url()).pathname, '/clients');
    assert.equal(query(page).get('search'), 'zephyr');
    // The demo tenant speaks French by default: check the count, not the words.
    assert.match(await page.locator('#toasts').textContent(), /\b2\b/);
    assert.ok(await page.locator('[data-testid=clients-empty]').isVisible(), 'the emptied search says so');
    for (const id of doomed) {
      const gone = await context.request.get(href(`/v1/api/client/view-customer-client/${id}`));
      assert.equal(gone.status(), 404);
    }
    // The others are still there; a filter or a sort swaps the results and keeps the address.
    await page.goto(href('/clients'));
    assert.deepEqual((await rowIDs(page)).sort(), kept.map(String).sort());
    await page.evaluate(() => { window.__sameDocument = true; });
    await page.selectOption('#c-limit', '50');
    await until(async () => query(page).get('limit') === '50', 'the address to hold the page size');
    await page.click('th a[data-sort=customer_name]');
    await until(async () => query(page).get('sort') === 'customer_name', 'the address to hold the sort');
    await until(async () => (await rowIDs(page)).join() === kept.map(String).join(), 'the rows by name');
    assert.equal(query(page).get('limit'), '50');
    assert.equal(await page.evaluate(() => window.__sameDocument), true, 'the filter or sort reloaded the page');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// The picker's bundle, when the page has asked for it.
const pickerRequested = (page) => page.evaluate(() => performance.getEntriesByType('resource').some((r) => /\/picker-[^/]*\.js$/.test(r.name)));
// Days as the server counts them (UTC); the picker's context runs in UTC too.
const utcDay = (d) => d.toISOString().slice(0, 10);
const countOf = async (page) => Number((await countText(page)).match(/\d+/)[0]);

test('the created-date range is picked with the picker, by keyboard and by mouse: the table and the address follow', async () => {
  const { context, page, problems } = await signedIn({ timezoneId: 'UTC' });
  try {
    await addClient(context, 'Picker One', 'Range Works');
    await addClient(context, 'Picker Two', 'Range Works');
    // Reach the list by the side navigation: htmx swaps it into the page, and the picker
    // must come up on that swapped content too.
    await page.evaluate(() => { window.__sameDocument = true; });
    await page.click('.sidenav a[href="/clients"]');
    await page.locator('#client-filters').waitFor();
    assert.equal(new URL(page.url()).pathname, '/clients');
    const all = await countOf(page);
    assert.ok(all >= 2, `clients listed: ${all}`);
    // Until the field is used, it is the two native date inputs and the bundle is not loaded.
    assert.equal(await page.getAttribute('#c-from', 'type'), 'date');
    assert.equal(await page.getAttribute('#c-to', 'type'), 'date');
    assert.equal(await pickerRequested(page), false, 'the picker bundle is loaded on demand only');

    // Keyboard: tabbing into the field loads the picker, which takes the focus over.
    await page.focus('#c-converted');
    await page.keyboard.press('Tab');
    const open = page.locator('[data-testid=client-created-range-open]');
    await open.waitFor();
    await until(() => page.evaluate(() => document.activeElement?.dataset.testid === 'client-created-range-open'), 'the focus on the picker');
    assert.equal(await pickerRequested(page), true);
    assert.equal(await page.locator('#c-from').getAttribute('aria-haspopup'), 'dialog', 'the field keeps its id');
    assert.equal(await page.locator('label[for=c-from]').textContent(), 'Créé entre', 'labelled, in the tenant language');

    // Enter opens the dialog on today; PageUp goes a month back, Enter picks that day, the
    // next day is picked too, and Tab reaches Set: a range in the past.
    await page.keyboard.press('Enter');
    const dialog = page.locator('[data-testid=client-created-range-dialog]');
    await dialog.waitFor();
    assert.equal(await dialog.getAttribute('role'), 'dialog');
    await page.keyboard.press('PageUp');
    await page.keyboard.press('Enter');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    for (let i = 0; i < 3; i++) await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'picker-set');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });

    // The form applies the range at once: the address and the table follow, in place. Every
    // client here was made today, so none was made then.
    const today = new Date();
    const monthAgo = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, today.getUTCDate()));
    if (monthAgo.getUTCMonth() === today.getUTCMonth()) monthAgo.setUTCDate(0); // 31 March → 28/29 February
    const [from, to] = [utcDay(monthAgo), utcDay(new Date(monthAgo.getTime() + 86400000))];
    await until(async () => query(page).get('from') === from && query(page).get('to') === to, 'the range in the address');
    await page.locator('[data-testid=clients-empty]').waitFor();
    assert.equal(await countOf(page), 0);
    assert.match(await open.textContent(), /^\d\d\/\d\d\/\d{4} – \d\d\/\d\d\/\d{4}/);
    await until(() => page.evaluate(() => document.activeElement?.dataset.testid === 'client-created-range-open'), 'the focus back on the field');

    // Mouse: open the field, go on to this month, pick today and Set (one day: from = to).
    await open.click();
    await dialog.waitFor();
    const day = utcDay(today);
    for (let i = 0; i < 2 && !(await page.locator(`[data-testid=client-created-range-dialog] button[data-date="${day}"]`).count()); i++) {
      await page.click('[data-testid=client-created-range-dialog] [data-testid=picker-next]');
    }
    await page.click(`[data-testid=client-created-range-dialog] button[data-date="${day}"]`);
    await page.click('[data-testid=client-created-range-dialog] [data-testid=picker-set]');
    await dialog.waitFor({ state: 'detached' });
    await until(async () => query(page).get('from') === day && query(page).get('to') === day, 'today in the address');
    await until(async () => (await countOf(page)) === all, 'the clients made today');
    const days = await page.$$eval('[data-testid=client-table] tbody tr time[datetime]', (ts) => ts.map((t) => t.getAttribute('datetime')));
    assert.ok(days.length > 0 && days.every((d) => d === day), `created days ${days}, want ${day}`);
    assert.equal(await page.evaluate(() => window.__sameDocument), true, 'picking reloaded the page');

    // The address gives the same list on a reload; the native inputs hold the range.
    await page.reload();
    assert.equal(await page.inputValue('#c-from'), day);
    assert.equal(await page.inputValue('#c-to'), day);
    assert.equal(await countOf(page), all);

    // Clear takes the filter away again: a press on the native input loads the picker and
    // opens its dialog, not the browser's.
    const box = await page.locator('#c-to').boundingBox();
    await page.mouse.click(box.x + 10, box.y + box.height / 2);
    await dialog.waitFor();
    await page.click('[data-testid=client-created-range-dialog] button:has-text("Effacer")');
    await until(async () => !query(page).get('from') && !query(page).get('to'), 'no range in the address');
    await until(async () => (await countOf(page)) === all, 'every client again');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('without JavaScript the created-date range is two date inputs with the same parameters', async () => {
  const { context, page } = await newPage(browser, { javaScriptEnabled: false, timezoneId: 'UTC' });
  try {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    await addClient(context, 'Plain Form', 'No Script Ltd');
    await page.goto(href('/clients'));
    const to = utcDay(new Date());
    const from = utcDay(new Date(Date.now() - 30 * 86400000));
    await page.fill('#c-from', from);
    await page.fill('#c-to', to);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#client-filters button[type=submit]')]);
    assert.equal(query(page).get('from'), from);
    assert.equal(query(page).get('to'), to);
    const days = await page.$$eval('[data-testid=client-table] tbody tr time[datetime]', (ts) => ts.map((t) => t.getAttribute('datetime')));
    assert.ok(days.length > 0 && days.every((d) => d >= from && d <= to), `created days ${days} within ${from}..${to}`);
    assert.equal(await page.getAttribute('#c-from', 'type'), 'date');
  } finally {
    await context.close();
  }
});

test(`page weight: /clients after sign-in is at most ${PAGE_WEIGHT_BUDGET} bytes on the wire (cold cache)`, async () => {
  const { context, page } = await signedIn();
  try {
    const { totalBytes, byType, requests } = await measureLoad(context, page, href('/clients'));
    console.log(`page weight /clients (admin, cold cache, compressed): total ${totalBytes} B; by type ${JSON.stringify(byType)}`);
    for (const r of requests) {
      console.log(`  ${r.type.padEnd(10)} ${r.status} ${String(r.bytes).padStart(7)} B (headers ${r.headerBytes} B)  ${new URL(r.url).pathname}`);
    }
    assert.equal(new URL(page.url()).pathname, '/clients', 'still signed in when measuring');
    assert.ok(requests.length > 0 && !requests.some((r) => /\/picker-[^/]*\.js$/.test(r.url)), 'the picker bundle waits for the date field to be used');
    assert.ok(totalBytes <= PAGE_WEIGHT_BUDGET, `${totalBytes} B > ${PAGE_WEIGHT_BUDGET} B`);
  } finally {
    await context.close();
  }
});
