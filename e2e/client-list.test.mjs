// The client list in a real browser: search as you type swaps only the results and keeps the
// address in step; two clients selected and deleted in bulk, through the confirmation step;
// and what /clients costs on the wire. One server (the demo tenant, plus clients made here
// through the API) and one browser for the file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, login, measureLoad, ADMIN } from './harness.mjs';

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
// violation the page reports.
async function signedIn() {
  const { context, page } = await newPage(browser);
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/favicon|Failed to load resource/.test(m.text())) problems.push(m.text());
  });
  await login(page, server.url, ADMIN.email, ADMIN.password);
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

test(`page weight: /clients after sign-in is at most ${PAGE_WEIGHT_BUDGET} bytes on the wire (cold cache)`, async () => {
  const { context, page } = await signedIn();
  try {
    const { totalBytes, byType } = await measureLoad(context, page, href('/clients'));
    console.log(`page weight /clients (admin, cold cache, compressed): total ${totalBytes} B; by type ${JSON.stringify(byType)}`);
    assert.ok(totalBytes <= PAGE_WEIGHT_BUDGET, `${totalBytes} B > ${PAGE_WEIGHT_BUDGET} B`);
  } finally {
    await context.close();
  }
});
