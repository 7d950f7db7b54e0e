// Two-factor sign-in in a real browser: enrol on /profile (the QR code and the secret, the
// first code computed here from the secret shown, as an authenticator app would), keep the
// recovery codes, sign out, sign in with a code, sign out, sign in with a recovery code,
// and see that recovery code refused the second time.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
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

// base32 decodes an RFC 4648 secret (what authenticator apps read).
function base32(s) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of s.replace(/=+$/, '').toUpperCase()) {
    const v = alphabet.indexOf(c);
    assert.ok(v >= 0, `not base32: ${c}`);
    bits += v.toString(2).padStart(5, '0');
  }
  const bytes = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

// totp is the RFC 6238 code of a secret for the 30-second step `step` (HMAC-SHA1, 6 digits).
function totp(secret, step) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', base32(secret)).update(counter).digest();
  const off = mac[mac.length - 1] & 0xf;
  const n = (mac.readUInt32BE(off) & 0x7fffffff) % 1_000_000;
  return String(n).padStart(6, '0');
}

const stepNow = () => Math.floor(Date.now() / 30_000);

// submit presses a form's submit button from the keyboard and waits for the next page.
async function submit(page, selector) {
  await page.focus(selector);
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
}

async function signOut(page) {
  await Promise.all([page.waitForNavigation(), page.click('[data-testid=logout]')]);
  assert.equal(new URL(page.url()).pathname, '/login');
}

// secondStep signs in with the password, then the given code on the second-step page.
async function secondStep(page, code) {
  await signIn(page, server.url, ADMIN.email, ADMIN.password);
  assert.equal(new URL(page.url()).pathname, '/login/two-factor');
  await page.fill('#code', code);
  await submit(page, '[data-testid=tfa-submit]');
}

test('enrol in two-factor sign-in, then sign in with a code and with a recovery code', async () => {
  const { context, page } = await newPage(browser);
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => {
    // A refused form answers 422 or 401, which the console reports as a failed load.
    if (m.type() === 'error' && !/favicon|Failed to load resource/.test(m.text())) problems.push(m.text());
  });
  try {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    // The demo tenant speaks French by default; the test reads English.
    await context.request.post(href('/language'), { form: { locale: 'en_US', back: '/home' }, maxRedirects: 0 });
    await page.goto(href('/home'));
    // From the user menu to the profile, and on to the enrolment.
    await Promise.all([page.waitForNavigation(), page.click('[data-testid=user-name]')]);
    assert.equal(new URL(page.url()).pathname, '/profile');
    await Promise.all([page.waitForNavigation(), page.click('[data-testid=tfa-enrol]')]);
    assert.equal(new URL(page.url()).pathname, '/profile/two-factor');
    const qr = page.locator('[data-testid=tfa-qr]');
    assert.match(await qr.getAttribute('src'), /^data:image\/png;base64,/);
    assert.ok(await qr.evaluate((img) => img.complete && img.naturalWidth > 0), 'the QR code is drawn');
    const secret = (await page.locator('[data-testid=tfa-secret]').textContent()).trim();

    // A wrong code is refused at its field; the right one turns it on.
    await page.fill('#f-enrol-code', '000000');
    await submit(page, '[data-testid=tfa-confirm]');
    assert.ok(await page.locator('#f-enrol-code[aria-invalid=true]').isVisible());
    const enrolStep = stepNow();
    await page.fill('#f-enrol-code', totp(secret, enrolStep));
    await submit(page, '[data-testid=tfa-confirm]');
    const codes = (await page.locator('[data-testid=recovery-codes] code').allTextContents()).map((c) => c.trim());
    assert.equal(codes.length, 10);
    await Promise.all([page.waitForNavigation(), page.click('[data-testid=codes-done]')]);
    assert.match(await page.locator('[data-testid=tfa-status]').textContent(), /On since/);

    // Sign out; sign in with a code (of a later step than the one the enrolment used: a
    // code works once).
    await signOut(page);
    await secondStep(page, totp(secret, Math.max(stepNow(), enrolStep + 1)));
    assert.notEqual(new URL(page.url()).pathname, '/login/two-factor');
    assert.notEqual(new URL(page.url()).pathname, '/login');
    await page.goto(href('/profile'));
    assert.match(await page.locator('[data-testid=tfa-codes-left]').textContent(), /10/);

    // Sign out; sign in with a recovery code.
    await signOut(page);
    await secondStep(page, codes[3]);
    await page.goto(href('/profile'));
    assert.equal(new URL(page.url()).pathname, '/profile');
    assert.match(await page.locator('[data-testid=tfa-codes-left]').textContent(), /9/);

    // The same recovery code does not work twice.
    await signOut(page);
    await secondStep(page, codes[3]);
    assert.equal(new URL(page.url()).pathname, '/login/two-factor');
    assert.ok(await page.locator('[data-testid=tfa-error]').isVisible());
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
