// Admin shell in a real browser: sign-in, home, language, sign-out, 404, overlay, page weight.
// One server and one browser for the whole file; every test opens its own context (own cookies).
// Tests run in file order: the language test changes the demo admin's saved language, so the
// tests that expect the tenant default (fr_FR) come before it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, login, signIn, measureLoad, ADMIN } from './harness.mjs';

const PAGE_WEIGHT_BUDGET = 40 * 1024; // bytes on the wire for /home after sign-in (spec/design: small first load)

let server;
let browser;

before(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
});

after(async () => {
  await Promise.allSettled([browser?.close(), server?.stop()]);
});

const htmlLang = (page) => page.getAttribute('html', 'lang');
const path = (page) => new URL(page.url()).pathname;

test('a wrong password shows the error on the login page', async () => {
  const { context, page } = await newPage(browser, { locale: 'en-US' });
  try {
    await login(page, server.url, ADMIN.email, 'not-the-password');
    assert.equal(path(page), '/login');
    const error = page.locator('[data-testid=login-error]');
    await error.waitFor({ state: 'visible' });
    assert.equal((await error.textContent()).trim(), 'Email or password is incorrect.');
    assert.equal(await htmlLang(page), 'en-US');
    // The email is kept, the password is not.
    assert.equal(await page.inputValue('#email'), ADMIN.email);
    assert.equal(await page.inputValue('#password'), '');
  } finally {
    await context.close();
  }
});

test('the demo admin signs in and lands on /home in the tenant language', async () => {
  const { context, page } = await newPage(browser);
  try {
    const response = await login(page, server.url, ADMIN.email, ADMIN.password);
    assert.equal(response?.status(), 200);
    assert.equal(path(page), '/home');
    assert.equal((await page.textContent('[data-testid=tenant-name]')).trim(), 'Demo Company');
    const users = (await page.textContent('[data-testid=count-users]')).replace(/\s+/g, ' ');
    assert.match(users, /\b2\b/);
    // The demo tenant's default language is fr_FR (spec), whatever the browser asks for.
    assert.equal(await htmlLang(page), 'fr-FR');
    assert.equal(await page.inputValue('#lang-select'), 'fr_FR');
  } finally {
    await context.close();
  }
});

test('the loading overlay exists and is hidden once the page has loaded', async () => {
  const { context, page } = await newPage(browser);
  try {
    // Signing in posts a plain form, which shows the overlay until the next page arrives.
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    assert.equal(path(page), '/home');
    const overlay = page.locator('#overlay');
    assert.equal(await overlay.count(), 1);
    await overlay.waitFor({ state: 'hidden' });
    assert.equal(await overlay.isHidden(), true);
    assert.equal(await overlay.evaluate((el) => el.hidden), true);
  } finally {
    await context.close();
  }
});

test('an unknown page shows the 404 page while signed in', async () => {
  const { context, page } = await newPage(browser);
  try {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    const response = await page.goto(new URL('/nope', server.url).href);
    assert.equal(response?.status(), 404);
    const error = page.locator('[data-testid=error-page]');
    await error.waitFor({ state: 'visible' });
    assert.match(await error.textContent(), /404/);
    // Still inside the signed-in shell.
    assert.equal(await page.locator('[data-testid=logout]').count(), 1);
  } finally {
    await context.close();
  }
});

test(`page weight: /home after sign-in is at most ${PAGE_WEIGHT_BUDGET} bytes on the wire (cold cache)`, async () => {
  const { context, page } = await newPage(browser);
  try {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    const { totalBytes, byType, requests } = await measureLoad(context, page, new URL('/home', server.url).href);
    console.log(`page weight /home (admin, cold cache, compressed): total ${totalBytes} B; by type ${JSON.stringify(byType)}`);
    for (const r of requests) {
      console.log(`  ${r.type.padEnd(10)} ${r.status} ${String(r.bytes).padStart(7)} B (headers ${r.headerBytes} B)  ${new URL(r.url).pathname}`);
    }
    assert.equal(path(page), '/home', 'still signed in when measuring');
    assert.ok(!requests.some((r) => /\/picker-[^/]*\.js$/.test(r.url)), 'the date picker bundle waits for its field to be used');
    assert.ok(totalBytes > 0, 'something was transferred');
    assert.ok(totalBytes <= PAGE_WEIGHT_BUDGET, `/home transferred ${totalBytes} B, budget ${PAGE_WEIGHT_BUDGET} B`);
  } finally {
    await context.close();
  }
});

test('switching the language to de_DE reloads the page in German and is kept', async () => {
  const { context, page } = await newPage(browser);
  try {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    assert.equal(path(page), '/home');
    // The admin script submits the form on change; the server redirects back here.
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }),
      page.selectOption('#lang-select', 'de_DE'),
    ]);
    assert.equal(path(page), '/home');
    assert.equal(await htmlLang(page), 'de-DE');
    assert.equal(await page.inputValue('#lang-select'), 'de_DE');
    assert.equal(await page.locator('#lang-select option[value=de_DE]').evaluate((o) => o.selected), true);

    await page.reload({ waitUntil: 'load' });
    assert.equal(await htmlLang(page), 'de-DE');
    assert.equal(await page.inputValue('#lang-select'), 'de_DE');
  } finally {
    await context.close();
  }
});

test('logging out returns to /login and /home then asks to sign in', async () => {
  const { context, page } = await newPage(browser);
  try {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    assert.equal(path(page), '/home');
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }),
      page.click('[data-testid=logout]'),
    ]);
    assert.equal(path(page), '/login');
    assert.equal(await page.locator('#email').count(), 1);

    await page.goto(new URL('/home', server.url).href);
    const here = new URL(page.url());
    assert.equal(here.pathname + here.search, '/login?next=%2Fhome');
  } finally {
    await context.close();
  }
});
