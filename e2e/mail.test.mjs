// Mail delivery in a real browser against the built binary: the mail settings page says
// no server is set; a test email waits with that reason in the email history; once the
// administrator points the settings at an SMTP server this test runs itself (node:net),
// the test email arrives there, and the history shows it sent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startServer, launchBrowser, newPage, signIn, ADMIN } from './harness.mjs';

let server;
let browser;
let smtp;
const received = [];

// A minimal SMTP receiver: enough of RFC 5321 for one client without TLS or AUTH.
function startSMTP() {
  const srv = net.createServer((sock) => {
    let buf = '';
    let inData = false;
    sock.write('220 localhost ESMTP test\r\n');
    sock.on('data', (chunk) => {
      buf += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buf.indexOf('\r\n.\r\n');
          if (end < 0) return;
          received.push(buf.slice(0, end));
          buf = buf.slice(end + 5);
          inData = false;
          sock.write('250 OK queued\r\n');
          continue;
        }
        const nl = buf.indexOf('\r\n');
        if (nl < 0) return;
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') sock.write('250-localhost\r\n250 8BITMIME\r\n');
        else if (verb === 'HELO' || verb === 'MAIL' || verb === 'RCPT' || verb === 'RSET' || verb === 'NOOP') sock.write('250 OK\r\n');
        else if (verb === 'DATA') { inData = true; sock.write('354 go ahead\r\n'); }
        else if (verb === 'QUIT') { sock.end('221 bye\r\n'); return; }
        else sock.write('502 not implemented\r\n');
      }
    });
    sock.on('error', () => {});
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(srv)));
}

before(async () => {
  process.env.CRM_SECRET_KEY = 'e2e-mail-secret';
  [server, browser, smtp] = await Promise.all([startServer({ args: ['--mail-interval', '1s'] }), launchBrowser(), startSMTP()]);
});

after(async () => {
  await Promise.allSettled([browser?.close(), server?.stop(), new Promise((r) => smtp?.close(r))]);
});

const href = (p) => new URL(p, server.url).href;

// reloadUntil reloads url until ok() holds (the sender sweeps every second, and at once
// when woken; the page itself has no live update), at most 15 s.
async function reloadUntil(page, url, ok) {
  const deadline = Date.now() + 15000;
  for (;;) {
    await page.goto(url);
    if (await ok()) return;
    if (Date.now() > deadline) assert.fail(`${url}: condition not reached`);
    await page.waitForTimeout(250);
  }
}

async function waitStatus(page, url, want) {
  await reloadUntil(page, url, async () => (await page.locator('[data-testid=email-status]').getAttribute('data-status')) === want);
}

test('a test email waits for a mail server, then is delivered', async () => {
  const { context, page } = await newPage(browser);
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  try {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    await page.goto(href('/settings/mail'));
    await page.locator('[data-testid=mail-none]').waitFor();

    // Without a server: a test email is queued, and the history says why it waits. The
    // settings need a host first; send the test from a page with none configured.
    await Promise.all([page.waitForNavigation(), page.click('[data-testid=mail-test]')]);
    const detail = page.url();
    assert.match(new URL(detail).pathname, /^\/emails\/\d+$/);
    await reloadUntil(page, detail, async () =>
      (await page.locator('[data-testid=email-reason]').count()) > 0 &&
      (await page.locator('[data-testid=email-reason]').textContent()).includes('no mail server configured'));
    const subject = (await page.locator('#email-title').textContent()).trim();

    await page.goto(href('/emails'));
    await page.locator('[data-testid=email-table]').waitFor();
    assert.equal(await page.locator('[data-testid=email-status]').first().getAttribute('data-status'), 'queued');

    // Configure the server (a password field stays empty: this relay has none).
    await page.goto(href('/settings/mail'));
    await page.fill('#f-host', '127.0.0.1');
    await page.fill('#f-port', String(smtp.address().port));
    await page.selectOption('#f-security', 'none');
    await page.fill('#f-from-address', 'crm@demo.test');
    await page.fill('#f-from-name', 'Demo CRM');
    await Promise.all([page.waitForNavigation(), page.click('[data-testid=mail-save]')]);
    assert.equal(await page.inputValue('#f-host'), '127.0.0.1');
    assert.equal(await page.inputValue('#f-password'), '');

    await waitStatus(page, detail, 'sent');
    assert.equal(received.length, 1);
    assert.ok(received[0].includes(`\r\nSubject: ${subject}\r\n`), `subject ${subject} in ${received[0].slice(0, 400)}`);
    assert.match(received[0], /^From: "Demo CRM" <crm@demo\.test>/m);
    assert.match(received[0], /^Message-ID: <[0-9a-f]+@demo\.test>/m);

    // The history filters by status.
    await page.goto(href('/emails?status=failed'));
    await page.locator('[data-testid=emails-empty]').waitFor();
    await page.goto(href('/emails?status=sent'));
    assert.equal(await page.locator('[data-testid=email-table] tbody tr').count(), 1);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// The bulk mail of a template carries a one-click unsubscribe link (RFC 8058). Following it
// in a browser with no session unsubscribes the address, and the next bulk mail to it is
// not sent: the history records it as unsubscribed. Runs after the test above, which set
// the mail server.
test('a bulk email carries an unsubscribe link that stops the next one', async () => {
  const { context, page } = await newPage(browser);
  const anon = await browser.newContext({ locale: 'en-US' });
  try {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    const api = async (method, path, data) => {
      const res = await context.request.fetch(href(path), { method, data });
      assert.ok(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`);
      return (await res.json()).data;
    };
    const lead = (await api('GET', '/v1/api/lead/list-customer-lead?page=1&limit=1')).result[0];
    assert.ok(lead.company_email, 'a demo lead with an email');
    const template = await api('POST', '/v1/api/create-template-master',
      { name: 'Autumn news', subject: 'News for {{company_name}}', body: 'Hello {{customer_name}}' });
    const before = received.length;
    await api('POST', '/v1/api/lead/send-bulk-email', { template_id: template.id, ids: [lead.id] });

    // It arrives with the one-click headers (folded lines unfolded, as a mail reader does).
    const deadline = Date.now() + 15000;
    while (received.length === before) {
      if (Date.now() > deadline) assert.fail('the bulk email did not arrive');
      await new Promise((r) => setTimeout(r, 100));
    }
    const headers = received[before].split('\r\n\r\n')[0].replace(/\r\n[ \t]+/g, ' ');
    assert.match(headers, new RegExp(`^To: .*${lead.company_email.replace(/[.]/g, '\\.')}`, 'mi'));
    assert.match(headers, /^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    const link = /^List-Unsubscribe: .*<(https?:[^>]+)>/m.exec(headers)?.[1];
    assert.ok(link, `List-Unsubscribe in ${headers}`);

    // The link, opened without a session, asks, and the button unsubscribes.
    const p2 = await anon.newPage();
    await p2.goto(link);
    await Promise.all([p2.waitForNavigation(), p2.click('[data-testid=unsubscribe-confirm]')]);
    assert.ok((await p2.locator('[data-testid=unsubscribed]').textContent()).includes(lead.company_email));

    // The next bulk email to that address is not sent.
    const again = await api('POST', '/v1/api/lead/send-bulk-email', { template_id: template.id, ids: [lead.id] });
    await reloadUntil(page, href('/emails?status=unsubscribed'), async () =>
      (await page.locator('[data-testid=email-table] tbody tr').count()) === 1);
    assert.equal(received.length, before + 1, 'nothing more was delivered');
    assert.ok(again.id > 0);
  } finally {
    await Promise.allSettled([context.close(), anon.close()]);
  }
});
