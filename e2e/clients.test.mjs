// Client conversion and lead documents in a real browser: convert a lead from its page and
// land on the new client; upload two documents and see their preview records.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, signIn, ADMIN } from './harness.mjs';

let server;
let browser;

before(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
});

after(async () => {
  await Promise.allSettled([browser?.close(), server?.stop()]);
});

const href = (p) => new URL(p, server.url).href;

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

// leadHref is the page of the n-th lead of the list.
async function leadHref(page, n) {
  await page.goto(href('/leads'));
  return page.$$eval('[data-testid=lead-table] tbody tr a[href^="/leads/"]', (as, i) => as[i].getAttribute('href'), n);
}

test('convert a lead and land on the client page', async () => {
  const { context, page, problems } = await signedIn();
  try {
    const lead = await leadHref(page, 0);
    await page.goto(href(lead));
    await Promise.all([page.waitForNavigation(), page.click('[data-testid=lead-convert]')]);
    assert.match(new URL(page.url()).pathname, /^\/clients\/\d+$/);
    assert.ok(await page.locator('[data-testid=client-page]').isVisible());
    assert.ok((await page.locator('#toasts [data-toast]').textContent()).trim().length > 0, 'a flash toast');
    assert.equal(await page.getAttribute('[data-testid=client-lead]', 'href'), lead);
    // Back on the lead, it links to its client instead of offering a second conversion.
    const client = new URL(page.url()).pathname;
    await page.goto(href(lead));
    assert.equal(await page.locator('[data-testid=lead-convert]').count(), 0);
    assert.equal(await page.getAttribute('[data-testid=lead-client-link]', 'href'), client);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('upload two documents and see their preview records', async () => {
  const { context, page, problems } = await signedIn();
  try {
    const lead = await leadHref(page, 1);
    await page.goto(href(lead));
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF\n');
    // A 1×1 PNG.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    await page.fill('[data-testid=upload-tag]', 'offer');
    await page.setInputFiles('[data-testid=upload-files]', [
      { name: 'offer.pdf', mimeType: 'application/pdf', buffer: pdf },
      { name: 'pixel.png', mimeType: 'image/png', buffer: png },
    ]);
    await Promise.all([page.waitForNavigation(), page.click('[data-testid=upload-submit]')]);
    const docs = page.locator('[data-testid=document]');
    assert.equal(await docs.count(), 2);
    const names = await page.$$eval('[data-testid=document-name]', (as) => as.map((a) => a.textContent.trim()).sort());
    assert.deepEqual(names, ['offer.pdf', 'pixel.png']);
    const sizes = await page.$$eval('[data-testid=document-size]', (s) => s.map((x) => x.textContent.trim()).sort());
    assert.deepEqual(sizes, [`${(png.length / 1024).toFixed(2)} KB`, `${(pdf.length / 1024).toFixed(2)} KB`].sort());
    assert.deepEqual(await page.$$eval('[data-testid=document-tag]', (s) => s.map((x) => x.textContent.trim())), ['offer', 'offer']);
    // The image shows a thumbnail that loaded from the download URL (inline).
    const thumb = page.locator('[data-testid=document-thumb]');
    assert.equal(await thumb.count(), 1);
    await page.waitForFunction(() => {
      const img = document.querySelector('[data-testid=document-thumb]');
      return img && img.complete && img.naturalWidth > 0;
    });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
