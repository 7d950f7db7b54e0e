// The users admin pages in a real browser: an administrator invites a user from
// /users/new and copies the invitation link; a fresh browser opens it, sets a password,
// signs in and lands on a page. Then the administrator deactivates a user who is signed in
// elsewhere, and that user's next request goes to sign-in.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, login, signIn, ADMIN, SALES } from './harness.mjs';

let server;
let browser;

before(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
});

after(async () => {
  await Promise.allSettled([browser?.close(), server?.stop()]);
});

const href = (p) => new URL(p, server.url).href;

async function signedIn(who) {
  const { context, page } = await newPage(browser);
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/favicon|Failed to load resource/.test(m.text())) problems.push(m.text());
  });
  await signIn(page, server.url, who.email, who.password);
  assert.notEqual(new URL(page.url()).pathname, '/login', `${who.email} signed in`);
  // The demo tenant speaks French by default; the assertions read English.
  await context.request.post(href('/language'), { form: { locale: 'en_US', back: '/home' }, maxRedirects: 0 });
  return { context, page, problems };
}

// submit presses a form's submit button from the keyboard and waits for the next page.
async function submit(page, selector) {
  await page.focus(selector);
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
}

test('an invited user sets a password through the copied link and signs in', async () => {
  const admin = await signedIn(ADMIN);
  const { context, page } = await newPage(browser);
  try {
    const a = admin.page;
    await a.goto(href('/users'));
    await Promise.all([a.waitForNavigation(), a.click('[data-testid=user-new]')]);
    assert.equal(new URL(a.url()).pathname, '/users/new');
    await a.fill('#f-name', 'Iris Invited');
    await a.fill('#f-email', 'iris@demo.test');
    await a.fill('#f-phone', '+33 6 12 34 56 78');
    const sales = await a.$eval('#f-role-id', (sel) => [...sel.options].find((o) => o.textContent.trim() === 'Sales').value);
    await a.selectOption('#f-role-id', sales);
    await a.check('#f-access-invite');
    await submit(a, '[data-testid=user-save]');
    await a.locator('[data-testid=user-invited]').waitFor();

    // Copy the link as a person would: select it in its field and copy it.
    await a.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await a.click('[data-testid=invite-link]');
    await a.keyboard.press('Control+A');
    await a.keyboard.press('Control+C');
    let link = await a.evaluate(() => navigator.clipboard.readText().catch(() => ''));
    if (!link) link = await a.inputValue('[data-testid=invite-link]'); // headless without a clipboard
    assert.match(link, /\/invite\/[^/]+$/);

    // A fresh browser opens the link, sets a password, signs in.
    await page.goto(link);
    assert.equal((await page.locator('[data-testid=invite-email]').textContent()).trim(), 'iris@demo.test');
    await page.fill('#password', 'weak');
    await submit(page, '[data-testid=invite-submit]');
    await page.locator('[data-testid=invite-error]').waitFor();
    await page.fill('#password', 'Invited@12a');
    await submit(page, '[data-testid=invite-submit]');
    assert.equal(new URL(page.url()).pathname, '/login');
    await login(page, server.url, 'iris@demo.test', 'Invited@12a');
    const landed = new URL(page.url()).pathname;
    assert.ok(['/home', '/leads'].includes(landed), `landed on ${landed}`);
    const me = await page.evaluate(async () => (await fetch('/v1/api/auth/me')).json());
    assert.equal(me.data.user.email, 'iris@demo.test');

    // The administrator sees the new user active, with the sign-in in the security log.
    await a.goto(href('/users?search=iris'));
    await Promise.all([a.waitForNavigation(), a.click('[data-testid=user-table] a:text("Iris Invited")')]);
    assert.equal((await a.locator('[data-testid=user-status]').textContent()).trim(), 'Active');
    await Promise.all([a.waitForNavigation(), a.click('[data-testid=user-log]')]);
    assert.ok(await a.locator('[data-testid=log-table] [data-kind=sign_in]').count() >= 1);
    assert.ok(await a.locator('[data-testid=log-table] [data-kind=password_set]').count() === 1);
    assert.deepEqual(admin.problems, []);
  } finally {
    await Promise.allSettled([context.close(), admin.context.close()]);
  }
});

test('a deactivated user\'s next request goes to sign-in', async () => {
  const admin = await signedIn(ADMIN);
  const sales = await signedIn(SALES);
  try {
    await sales.page.goto(href('/leads'));
    assert.equal(new URL(sales.page.url()).pathname, '/leads');

    const a = admin.page;
    await a.goto(href('/users'));
    await a.fill('[data-testid=user-search]', 'sales@demo');
    await a.waitForFunction(() => document.querySelectorAll('[data-testid=user-table] tbody tr').length === 1); // htmx swapped the results
    await Promise.all([a.waitForNavigation(), a.click(`[data-testid=user-table] tr:has-text("${SALES.email}") a`)]);
    await submit(a, '[data-testid=user-deactivate]');
    assert.equal((await a.locator('[data-testid=user-status]').textContent()).trim(), 'Inactive');

    await sales.page.goto(href('/leads'));
    assert.equal(new URL(sales.page.url()).pathname, '/login');
    const res = await sales.page.evaluate(async () => (await fetch('/v1/api/auth/me')).status);
    assert.equal(res, 401);

    // Deactivating oneself is refused on the page, with the reason.
    await a.goto(href('/users?search=admin%40demo'));
    await Promise.all([a.waitForNavigation(), a.click(`[data-testid=user-table] tr:has-text("${ADMIN.email}") a`)]);
    await submit(a, '[data-testid=user-deactivate]');
    assert.match(await a.locator('[data-testid=user-error]').textContent(), /cannot deactivate or delete yourself/);
    assert.deepEqual(admin.problems, []);
  } finally {
    await Promise.allSettled([admin.context.close(), sales.context.close()]);
  }
});
