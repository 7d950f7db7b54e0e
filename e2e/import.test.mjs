// CSV import in a real browser: upload a generated file of leads, keep the suggested
// columns, start the import, watch the progress bar (htmx polls it every second) reach
// 100 %, and read the report with its counts, the failed rows and the downloadable report.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, signIn, ADMIN } from './harness.mjs';

const ROWS = 6000; // 12 batches of 500
const PAUSE = '250ms'; // rest between batches: the import lasts ≥ 2.75 s, a few polls, on any machine
const BAD = 2; // rows that fail validation

let server;
let browser;

before(async () => {
  [server, browser] = await Promise.all([startServer({ args: ['--import-pause', PAUSE] }), launchBrowser()]);
});

after(async () => {
  await Promise.allSettled([browser?.close(), server?.stop()]);
});

/** A CSV of ROWS leads, with a byte order mark and semicolons as a spreadsheet app saves it. */
function generatedCSV() {
  const stages = ['Leads', 'Deals', 'Won'];
  const lines = ['Customer name;E-mail;Phone;Stage;Company;Billing City'];
  for (let i = 0; i < ROWS - BAD; i++) {
    lines.push(`E2E Person ${i};e2e-import-${i}@example.test;9${String(i).padStart(9, '0')};${stages[i % 3]};Company ${i % 50};Chennai`);
  }
  lines.push('No Email;not-an-email;;;;');
  lines.push(';noname@example.test;;;;');
  return Buffer.from('\ufeff' + lines.join('\r\n') + '\r\n', 'utf8');
}

test('an import of a generated CSV shows its progress up to 100 % and then its report', async () => {
  const { context, page } = await newPage(browser);
  try {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    await page.goto(new URL('/imports/new', server.url).href);
    await page.selectOption('#f-entity', 'lead');
    await page.setInputFiles('#f-file', { name: 'leads.csv', mimeType: 'text/csv', buffer: generatedCSV() });
    await Promise.all([
      page.waitForURL(/\/imports\/\d+$/),
      page.click('[data-testid=import-upload-submit]'),
    ]);

    // The preview and the suggested columns.
    await page.waitForSelector('[data-testid=import-mapping]');
    assert.equal(await page.inputValue('#map-0'), 'customer_name');
    assert.equal(await page.inputValue('#map-1'), 'company_email');
    assert.equal(await page.inputValue('#map-2'), 'company_phone_number');
    assert.equal(await page.inputValue('#map-3'), 'lead_stage_id');
    assert.equal(await page.inputValue('#map-5'), 'billing_address.city');
    const preview = await page.textContent('[data-testid=import-preview]');
    assert.match(preview, /e2e-import-0@example\.test/);
    await page.check('#mode-create');

    // Start it, and watch the progress bar: each poll replaces it with the next figure.
    const seen = [];
    page.on('response', async (res) => {
      if (/\/imports\/\d+\/progress$/.test(new URL(res.url()).pathname)) seen.push(res.status());
    });
    await Promise.all([
      page.waitForURL(/\/imports\/\d+$/),
      page.click('[data-testid=import-run]'),
    ]);
    const percents = [];
    const deadline = Date.now() + 120_000;
    for (;;) {
      const text = await page.locator('[data-testid=import-percent]').textContent().catch(() => null);
      if (text) percents.push(Number.parseInt(text, 10));
      if (await page.locator('[data-testid=import-report]').count() > 0) break;
      assert.ok(Date.now() < deadline, `the import did not finish in time (progress seen: ${percents.join(', ')})`);
      await page.waitForTimeout(200);
    }
    console.log(`progress seen: ${[...new Set(percents)].join('% → ')}%; ${seen.length} progress polls`);
    assert.ok(seen.length > 0, 'the progress was polled');
    assert.ok(percents.every((p, i) => i === 0 || p >= percents[i - 1]), `progress never goes back: ${percents}`);

    // The report: 100 %, the counts, the failed rows with their reasons.
    assert.equal((await page.textContent('[data-testid=import-percent]')).trim(), '100%');
    assert.equal(await page.getAttribute('[data-testid=import-progress-bar]', 'value'), String(ROWS));
    const num = async (id) => Number((await page.textContent(`[data-testid=${id}] .stat-value`)).replace(/\D/g, ''));
    assert.equal(await num('import-created'), ROWS - BAD);
    assert.equal(await num('import-updated'), 0);
    assert.equal(await num('import-skipped'), 0);
    assert.equal(await num('import-failed'), BAD);
    // The header is row 1, so the two bad rows at the end are rows ROWS and ROWS + 1.
    const rows = await page.locator('[data-testid=import-problems] tbody tr').evaluateAll(
      (trs) => trs.map((tr) => tr.dataset.row + ':' + tr.querySelector('.badge').className));
    assert.deepEqual(rows, [`${ROWS}:badge outcome-failed`, `${ROWS + 1}:badge outcome-failed`]);
    assert.equal(await page.locator('[data-testid=import-progress]').count(), 0, 'no more polling once done');
    assert.equal(await page.locator('[data-testid=import-undo]').count(), 1);

    // The downloadable report has a line for every row.
    const href = await page.getAttribute('[data-testid=import-report-download]', 'href');
    const res = await context.request.get(new URL(href, server.url).href);
    assert.equal(res.status(), 200);
    assert.match(res.headers()['content-disposition'], /^attachment/);
    const lines = (await res.text()).trim().split(/\r?\n/);
    assert.equal(lines.length, ROWS + 1);

    // And the list of imports shows it as done.
    await page.goto(new URL('/imports', server.url).href);
    assert.match(await page.textContent('[data-testid=imports-table]'), /leads\.csv/);
  } finally {
    await context.close();
  }
});
