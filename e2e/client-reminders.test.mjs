// A client's own reminders in a real browser: added from the client page's reminders
// section, listed there, marked done; the page keeps to 360 px without horizontal scroll.
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

test('a client page adds, lists and completes its own reminders', async () => {
  const { context, page } = await newPage(browser, { viewport: { width: 360, height: 800 } });
  try {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    // A client: the first lead of the demo, converted.
    await page.goto(new URL('/leads', server.url).href);
    const lead = await page.$eval('[data-testid=lead-table] tbody tr a[href^="/leads/"]', (a) => a.getAttribute('href'));
    await page.goto(new URL(lead, server.url).href);
    await Promise.all([page.waitForNavigation(), page.click('[data-testid=lead-convert]')]);
    const client = new URL(page.url()).pathname;
    assert.match(client, /^\/clients\/\d+$/);
    const section = page.locator('[data-testid=client-reminders]');
    await section.waitFor();
    assert.equal(await section.locator('[data-testid=reminder-form]').getAttribute('action'), `${client}/reminders`);
    // A refusal keeps the form with the error next to its field.
    await Promise.all([page.waitForNavigation(), section.locator('[data-testid=reminder-save]').click()]);
    await page.locator('[data-testid=error-title]').waitFor();
    await page.goto(new URL(client, server.url).href);
    await section.locator('#f-title').fill('Ring about renewal');
    // The due time straight into the field (the picker's own test covers picking).
    await section.locator('input[name=due_at]').evaluate((el) => { el.value = '2031-03-04T10:15'; });
    await Promise.all([page.waitForNavigation(), section.locator('[data-testid=reminder-save]').click()]);
    assert.equal(new URL(page.url()).pathname, client);
    const row = section.locator('[data-testid=reminder]', { hasText: 'Ring about renewal' });
    await row.waitFor();
    assert.equal(await row.locator('[data-testid=reminder-due]').getAttribute('datetime'), '2031-03-04T10:15:00Z');
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no horizontal scroll at 360 px');
    await Promise.all([page.waitForNavigation(), row.locator('[data-testid=reminder-done]').click()]);
    await section.locator('[data-testid=reminder].reminder-done', { hasText: 'Ring about renewal' }).waitFor();
  } finally {
    await context.close();
  }
});
