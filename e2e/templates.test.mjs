// Email templates and bulk email in a real browser: create a template with merge fields,
// preview it against a lead (htmx), send it to two leads ticked in the lead list, watch the
// send's report finish, and find the messages in the email history.
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

test('a template with merge fields, previewed, then sent to leads ticked in the list', async () => {
  const { context, page } = await newPage(browser);
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/favicon|Failed to load resource/.test(m.text())) problems.push(m.text());
  });
  try {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);

    // Two leads with an email address, from the list.
    await page.goto(href('/leads'));
    const rows = page.locator('[data-testid=lead-table] tbody tr');
    await rows.first().waitFor();
    const leads = [];
    for (let i = 0; i < (await rows.count()) && leads.length < 2; i++) {
      const row = rows.nth(i);
      const text = await row.textContent();
      if (/@/.test(text)) leads.push({ id: await row.getAttribute('data-lead-id'), text });
    }
    assert.equal(leads.length, 2, 'two leads with an email address');

    // The template, with its merge fields listed on the form.
    await page.goto(href('/settings/templates'));
    await Promise.all([page.waitForNavigation(), page.click('[data-testid=template-new]')]);
    await page.click('[data-testid=merge-fields] summary');
    assert.ok(await page.locator('[data-testid=merge-fields] code', { hasText: '{{customer_name}}' }).isVisible());
    await page.fill('#f-name', 'Spring news');
    await page.fill('#f-subject', 'News for {{customer_name}}');
    await page.fill('#f-body', 'Dear **{{customer_name}}**,\n\nnews from {{company_profile_name}}.<script>window.bad = 1</script>');

    // Live preview against the first lead.
    await page.selectOption('#f-preview-entity', 'lead');
    await page.fill('#f-preview-id', leads[0].id);
    await page.click('[data-testid=preview-button]');
    const subject = page.locator('[data-testid=preview-subject]');
    await subject.waitFor();
    const previewed = (await subject.textContent()).trim();
    assert.match(previewed, /^News for \S/);
    assert.ok(leads[0].text.includes(previewed.replace('News for ', '')), `preview names the lead: ${previewed}`);
    assert.equal(await page.locator('[data-testid=preview-html] strong').count(), 1);
    assert.equal(await page.locator('[data-testid=preview-html] script').count(), 0, 'the script does not survive');

    await Promise.all([page.waitForNavigation(), page.click('[data-testid=template-save]')]);
    assert.match(new URL(page.url()).pathname, /^\/settings\/templates\/\d+$/);

    // Tick the two leads and send.
    await page.goto(href('/leads'));
    for (const l of leads) await page.check(`#sel-${l.id}`);
    await Promise.all([page.waitForNavigation(), page.click('[data-testid=bulk-email]')]);
    await page.locator('[data-testid=send-confirm]').waitFor();
    const recipients = Number(await page.getAttribute('[data-testid=send-recipients]', 'data-count'));
    const skipped = Number(await page.getAttribute('[data-testid=send-unsubscribed]', 'data-count'));
    assert.equal(recipients + skipped, 2);
    await page.selectOption('#f-template-id', { label: 'Spring news' });
    await Promise.all([page.waitForNavigation(), page.click('[data-testid=send-submit]')]);
    assert.match(new URL(page.url()).pathname, /^\/emails\/sends\/\d+$/);
    // The report polls itself until the send is done.
    await page.locator('[data-testid=send-progress][data-status=done]').waitFor({ timeout: 20000 });
    assert.equal((await page.textContent('[data-testid=send-queued]')).trim(), String(recipients));

    // The messages in the email history, as bulk mail.
    await Promise.all([page.waitForNavigation(), page.click('[data-testid=send-history]')]);
    const subjects = await page.locator('[data-testid=emails-page] tbody tr').allTextContents();
    const ours = subjects.filter((s) => s.includes('News for '));
    assert.equal(ours.length, 2, `history: ${subjects.join(' | ')}`);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
