// Team administration in a real browser: build the Sales role's matrix (leads viewed by
// team), put the administrator and the sales user in a team, and see the sales user's lead
// list change; take the administrator out again and see it shrink back. Then sign in with
// an identity provider the test runs itself (node:http, RS256 ID tokens, PKCE).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, signIn, ADMIN, SALES } from './harness.mjs';

let server;
let browser;

before(async () => {
  process.env.CRM_SECRET_KEY = 'e2e-roles-secret'; // SSO keeps the client secret sealed with it
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
  return { context, page, problems };
}

// leadTotal is the lead list's count as the user reads it.
async function leadTotal(page) {
  await page.goto(href('/leads'));
  const text = await page.locator('[data-testid=lead-count]').textContent();
  return Number(text.replace(/[^0-9]/g, ''));
}

// submit presses a form's submit button from the keyboard and waits for the next page.
async function submit(page, selector) {
  await page.focus(selector);
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
}

test('a team scope built in the matrix changes what a sales user lists', async () => {
  const admin = await signedIn(ADMIN);
  const sales = await signedIn(SALES);
  try {
    const own = await leadTotal(sales.page);
    const all = await leadTotal(admin.page);
    assert.ok(own > 0 && own < all, `sales sees ${own} of ${all}`);

    // A team with both users, from the teams pages.
    const { page } = admin;
    await page.goto(href('/teams'));
    await page.fill('#f-team-name', 'North');
    await submit(page, '[data-testid=team-add] button[type=submit]');
    assert.match(new URL(page.url()).pathname, /^\/teams\/\d+$/);
    const teamPath = new URL(page.url()).pathname;
    for (const email of [ADMIN.email, SALES.email]) {
      const value = await page.$eval('#f-member', (sel, e) => [...sel.options].find((o) => o.textContent.includes(e)).value, email);
      await page.selectOption('#f-member', value);
      await submit(page, '[data-testid=team-add-member] button[type=submit]');
    }
    assert.equal(await page.locator('[data-testid=team-members] li').count(), 2);

    // The Sales role: leads viewed by team, in the matrix.
    await page.goto(href('/roles'));
    await Promise.all([page.waitForNavigation(), page.click('[data-testid=roles] a:text("Sales")')]);
    assert.equal(await page.inputValue('[data-testid="p.leads.view"]'), 'own');
    await page.selectOption('[data-testid="p.leads.view"]', 'team');
    await submit(page, '[data-testid=role-save]');
    assert.equal(await page.inputValue('[data-testid="p.leads.view"]'), 'team');
    assert.equal(await leadTotal(sales.page), all, 'the team reaches the administrator\'s leads too');

    // The Administrator's matrix is read-only.
    await page.goto(href('/roles'));
    await Promise.all([page.waitForNavigation(), page.click('[data-testid=roles] a:text("Administrator")')]);
    assert.ok(await page.locator('[data-testid="p.leads.view"]').isDisabled());
    assert.equal(await page.locator('[data-testid=role-save]').count(), 0);

    // Out of the team, the administrator's leads leave the sales user's list.
    await page.goto(href(teamPath));
    await submit(page, `[data-testid=team-members] li:has-text("${ADMIN.email}") button`);
    assert.equal(await leadTotal(sales.page), own);
    assert.deepEqual([...admin.problems, ...sales.problems], []);
  } finally {
    await Promise.allSettled([admin.context.close(), sales.context.close()]);
  }
});

// A small OpenID provider for the browser test: discovery, JWKS (RSA), authorize (PKCE
// required) and token endpoints, RS256 ID tokens for the email it is told.
async function startProvider(email) {
  const { createServer } = await import('node:http');
  const { generateKeyPairSync, createHash, sign, randomBytes } = await import('node:crypto');
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' };
  const codes = new Map();
  const b64 = (b) => Buffer.from(b).toString('base64url');
  let base = '';
  const srv = createServer(async (req, res) => {
    const u = new URL(req.url, base);
    const json = (o, status = 200) => { res.writeHead(status, { 'Content-Type': 'application/json' }); res.end(JSON.stringify(o)); };
    if (u.pathname === '/.well-known/openid-configuration') {
      return json({ issuer: base, authorization_endpoint: `${base}/authorize`, token_endpoint: `${base}/token`, jwks_uri: `${base}/jwks`,
        response_types_supported: ['code'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['RS256'] });
    }
    if (u.pathname === '/jwks') return json({ keys: [jwk] });
    if (u.pathname === '/authorize') {
      const q = u.searchParams;
      if (q.get('code_challenge_method') !== 'S256') { res.writeHead(400); return res.end('PKCE required'); }
      const code = b64(randomBytes(16));
      codes.set(code, { challenge: q.get('code_challenge'), nonce: q.get('nonce'), aud: q.get('client_id') });
      res.writeHead(302, { Location: `${q.get('redirect_uri')}?code=${code}&state=${encodeURIComponent(q.get('state'))}` });
      return res.end();
    }
    if (u.pathname === '/token') {
      let body = '';
      for await (const chunk of req) body += chunk;
      const form = new URLSearchParams(body);
      const c = codes.get(form.get('code'));
      codes.delete(form.get('code'));
      if (!c || b64(createHash('sha256').update(form.get('code_verifier') ?? '').digest()) !== c.challenge) return json({ error: 'invalid_grant' }, 400);
      const now = Math.floor(Date.now() / 1000);
      const head = b64(JSON.stringify({ alg: 'RS256', kid: 'k1', typ: 'JWT' }));
      const claims = b64(JSON.stringify({ iss: base, sub: 'u1', aud: c.aud, email, email_verified: true, iat: now, exp: now + 300, nonce: c.nonce }));
      const sig = b64(sign('sha256', Buffer.from(`${head}.${claims}`), privateKey));
      return json({ access_token: 'at', token_type: 'Bearer', expires_in: 300, id_token: `${head}.${claims}.${sig}` });
    }
    res.writeHead(404); res.end();
  });
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${srv.address().port}`;
  return { url: base, close: () => new Promise((resolve) => srv.close(resolve)) };
}

test('sign in with the tenant\'s identity provider', async () => {
  const idp = await startProvider(SALES.email);
  const admin = await signedIn(ADMIN);
  const { context, page } = await newPage(browser);
  try {
    await admin.page.goto(href('/settings/sso'));
    await admin.page.fill('#f-provider', 'Demo IdP');
    await admin.page.fill('#f-issuer', idp.url);
    await admin.page.fill('#f-client-id', 'crm');
    await admin.page.fill('#f-client-secret', 'secret');
    await submit(admin.page, '[data-testid=sso-save]');
    assert.match(await admin.page.locator('[data-testid=sso-link]').textContent(), /\/auth\/google\?tenant=\d+/);

    // Signed out: type the email, off to the provider and back, signed in as that user.
    await page.goto(href('/login'));
    await page.fill('#sso-email', SALES.email);
    await submit(page, '[data-testid=sso-submit]');
    assert.equal((await page.locator('[data-testid=sso-provider]').textContent()).trim(), 'Sign in with Demo IdP');
    await Promise.all([page.waitForURL((u) => new URL(u).pathname === '/home'), page.click('[data-testid=sso-provider]')]);
    const me = await page.evaluate(async () => (await fetch('/v1/api/auth/me')).json());
    assert.equal(me.data.user.email, SALES.email);
  } finally {
    await Promise.allSettled([context.close(), admin.context.close(), idp.close()]);
  }
});
