// Keep in touch in a real browser against the built binary: add an email plan on a lead
// page (keyboard and form controls), find it on /keep-in-touch, pause it, send it now; with
// no mail server configured the message waits in /emails, queued, saying why.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, signIn, measureLoad, ADMIN } from './harness.mjs';

let server;
let browser;

before(async () => {
  [server, browser] = await Promise.all([startServer({ args: ['--mail-interval', '1s'] }), launchBrowser()]);
});

after(async () => {
  await Promise.allSettled([browser?.close(), server?.stop()]);
});

const href = (p) => new URL(p, server.url).href;

// reloadUntil reloads url until ok() holds (the mail sender works in the background), at
// most 15 s.
async function reloadUntil(page, url, ok) {
  const deadline = Date.now() + 15000;
  for (;;) {
    await page.goto(url);
    if (await ok()) return;
    if (Date.now() > deadline) assert.fail(`${url}: condition not reached`);
    await page.waitForLoadState('networkidle');
  }
}

// press submits a form from the keyboard and waits for the page it leads to.
async function press(page, selector) {
  await page.focus(selector);
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
}

test('add a plan on a lead, list it, pause it, send it now', async () => {
  const { context, page } = await newPage(browser);
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/favicon|Failed to load resource/.test(m.text())) problems.push(m.text());
  });
  try {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    // A lead and an email template, through the API with the session.
    const lead = await context.request.post(href('/v1/api/lead/create-customer-lead'), {
      data: { customer_name: 'Kit Person', company_name: 'Kit Co', company_email: 'kit.person@example.com', company_phone_number: '9876543210' },
    });
    assert.equal(lead.status(), 201, await lead.text());
    const leadID = (await lead.json()).data.id;
    const tmpl = await context.request.post(href('/v1/api/create-template-master'), {
      data: { name: 'Kit check-in', subject: 'Checking in, {{customer_name}}', body: 'Hello {{customer_name}}, how are things?' },
    });
    assert.equal(tmpl.status(), 201, await tmpl.text());

    // The lead page's section: empty, then a weekly email plan from next week.
    await page.goto(href(`/leads/${leadID}`));
    await page.locator('[data-testid=kit-empty]').waitFor();
    await page.click('[data-testid=kit-add]');
    const start = new Date(Date.now() + 7 * 86400000);
    const local = `${start.getFullYear()}-${String(start.getMonth() + 1).padStart(2, '0')}-${String(start.getDate()).padStart(2, '0')}T09:30`;
    const form = page.locator('[data-testid=kit-form]');
    await form.locator('#f-type').selectOption('email');
    await form.locator('#f-interval-type').selectOption('weekly');
    await form.locator('#f-start-at').fill(local);
    await form.locator('#f-template-id').selectOption({ label: 'Kit check-in' });
    await press(page, '[data-testid=kit-save]');
    assert.match(page.url(), new RegExp(`/leads/${leadID}#keep-in-touch$`));
    assert.equal(await page.locator('[data-testid=kit-plan]').count(), 1);
    assert.match(await page.locator('[data-testid=kit-next]').textContent(), /09:30/);

    // The list page has it, with its lead.
    await page.goto(href('/keep-in-touch'));
    const row = page.locator('[data-testid=kit-plan]').filter({ hasText: 'Kit Person' });
    await row.waitFor();
    assert.match(await row.locator('[data-testid=kit-plan-type]').textContent(), /e-?mail/i); // in the admin's language

    // The list's first load stays small (bytes on the wire, cold cache).
    const { totalBytes } = await measureLoad(context, page, href('/keep-in-touch'));
    assert.ok(totalBytes < 40 * 1024, `/keep-in-touch weighs ${totalBytes} bytes`);
    console.log(`# /keep-in-touch first load: ${totalBytes} bytes`);

    // Pause it from the list: it says so, and offers to resume.
    await press(page, '[data-testid=kit-plan]:has-text("Kit Person") [data-testid=kit-pause]');
    await page.locator('[data-testid=kit-plan]:has-text("Kit Person") [data-testid=kit-paused]').waitFor();
    await page.locator('[data-testid=kit-plan]:has-text("Kit Person") [data-testid=kit-resume]').waitFor();
    await page.goto(href('/keep-in-touch?active=false'));
    assert.equal(await page.locator('[data-testid=kit-plan]:has-text("Kit Person")').count(), 1);

    // Send now, from the lead page: the next occurrence moves a week on.
    await page.goto(href(`/leads/${leadID}`));
    const before = await page.locator('[data-testid=kit-next]').getAttribute('datetime');
    await press(page, '[data-testid=kit-send-now]');
    const after = await page.locator('[data-testid=kit-next]').getAttribute('datetime');
    assert.equal(new Date(after) - new Date(before), 7 * 86400000, `${before} → ${after}`);

    // No mail server: the message waits, queued, with the reason.
    await reloadUntil(page, href(`/emails?lead_id=${leadID}`), async () =>
      (await page.locator('[data-testid=email-reason]').count()) > 0 &&
      (await page.locator('[data-testid=email-reason]').first().textContent()).includes('no mail server configured'));
    assert.equal(await page.locator('[data-testid=email-status]').first().getAttribute('data-status'), 'queued');
    assert.ok((await page.locator('main').textContent()).includes('Checking in, Kit Person'));
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
