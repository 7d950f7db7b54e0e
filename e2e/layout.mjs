// Every admin page and every mobile screen at a phone's width (360 × 740) and a laptop's
// (1280 × 800): no sideways scrolling of the document, no element wider than the viewport
// (a region that scrolls inside itself, such as the pipeline board, may hold wider content),
// no console error or failed request, no untranslated message key on the page, and no
// serious or critical axe-core violation. With E2E_SCREENSHOTS=1 (`npx just screenshots`) a
// screenshot of each page at each size goes to e2e/screenshots/ (git-ignored) for a person to
// look at; the suite checks without them (they were a quarter of these files' time, and in CI
// nobody looks).
//
// One server, one signed-in context; the pages are visited one after the other. Each size is
// a test file of its own (layout-phone.test.mjs, layout-laptop.test.mjs), so that each file
// stays well inside the runner's time limit for a file on a slow machine.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { startServer, launchBrowser, signIn, ADMIN, ROOT } from './harness.mjs';

export const PHONE = { name: '360', viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true };
export const LAPTOP = { name: '1280', viewport: { width: 1280, height: 800 } };
const SHOTS = process.env.E2E_SCREENSHOTS === '1' ? join(ROOT, 'e2e', 'screenshots') : '';
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

// Every message id of the admin locales ("leadsPage.action.document"), to find one shown as is.
const KEYS = new Set();
for (const file of readdirSync(join(ROOT, 'locales')).filter((f) => f.endsWith('.toml'))) {
  let section = '';
  for (const line of readFileSync(join(ROOT, 'locales', file), 'utf8').split('\n')) {
    const s = /^\[([^\]]+)\]/.exec(line);
    if (s) section = s[1];
    const k = /^([A-Za-z0-9_]+)\s*=/.exec(line);
    if (k) KEYS.add(section ? `${section}.${k[1]}` : k[1]);
  }
}


let server;
let browser;
let context;
let page;
const pages = []; // { name, path, mobile?, anonymous?, status? }

const href = (p) => new URL(p, server.url).href;

async function api(method, path, data) {
  const res = await context.request.fetch(href(path), { method, ...data });
  assert.ok(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`);
  return (await res.json()).data;
}

// firstHref is the first link of a page matching a pattern (an id the demo data chose).
async function firstHref(path, pattern) {
  const html = await (await context.request.get(href(path))).text();
  const m = pattern.exec(html);
  assert.ok(m, `no link matching ${pattern} on ${path}`);
  return m[0].replace(/&amp;/g, '&');
}

before(async () => {
  const [s, b] = await Promise.allSettled([startServer(), launchBrowser()]);
  server = s.value;
  browser = b.value;
  if (s.status === 'rejected' || b.status === 'rejected') throw s.reason || b.reason;
  context = await browser.newContext({ locale: 'en-US' });
  page = await context.newPage();
  await signIn(page, server.url, ADMIN.email, ADMIN.password);
  // The demo tenant speaks French by default; English makes a stray key easier to tell apart.
  await context.request.post(href('/language'), { form: { locale: 'en_US', back: '/home' }, maxRedirects: 0 });

  // Records for the pages that need one: a client, a document and a reminder on a lead, an
  // import waiting for its columns and one that ran.
  const lead = (await firstHref('/leads', /\/leads\/\d+(?=")/)).slice('/leads/'.length);
  const client = await api('POST', '/v1/api/client/create-customer-client', {
    data: { customer_name: 'Ada Lovelace', company_name: 'Analytical Engines', company_email: 'ada@example.com', company_dial_code: '+91', company_phone_number: '9876543210' },
  });
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
  const upload = { multipart: { tag: 'offer', files: { name: 'a-rather-long-file-name-for-the-offer.png', mimeType: 'image/png', buffer: png } } };
  await api('POST', `/v1/api/lead/create-document/${lead}`, upload);
  await api('POST', `/v1/api/client/create-document/${client.id}`, upload);
  await api('POST', '/v1/api/lead/create-remainders', {
    data: { lead_id: Number(lead), title: 'Call back about the second offer and the delivery dates', note: 'Ask for the signed order form.', due_at: new Date(Date.now() - 3600_000).toISOString() },
  });
  await api('POST', '/v1/api/lead/create-remainders', {
    data: { lead_id: Number(lead), title: 'Send the brochure', due_at: new Date(Date.now() + 86400_000).toISOString() },
  });
  // Keep in touch: a call plan on the lead (app/kit).
  const kit = await api('POST', '/v1/api/kit/create-keep-in-touch', {
    data: { entity: 'lead', record_id: Number(lead), type: 'call', interval_type: 'monthly', start_at: new Date(Date.now() + 86400_000).toISOString().slice(0, 16), subject: 'Quarterly review of the delivery schedule and the open orders' },
  });
  const csv = Buffer.from('Name;Email;Phone;Stage;Company;City\r\n' +
    Array.from({ length: 5 }, (_, i) => `Imported Person ${i};imported-${i}@example.test;98765432${10 + i};New;Importers Ltd;Chennai`).join('\r\n') + '\r\n');
  const file = { multipart: { entity: 'lead', file: { name: 'leads-with-a-long-name.csv', mimeType: 'text/csv', buffer: csv } } };
  const waiting = await api('POST', '/v1/api/import/create-import', file);
  const ran = await api('POST', '/v1/api/import/create-import', file);
  await api('PATCH', `/v1/api/import/run-import/${ran.id}`, { data: { mode: 'create' } });
  // Wait for the run to finish (the undo page needs it done); the bound only ends a failure.
  for (const deadline = Date.now() + 60_000; ;) {
    const st = await api('GET', `/v1/api/import/view-import/${ran.id}`);
    if (st.status === 'done') break;
    if (Date.now() > deadline) throw new Error(`the seeded import is still ${st.status} after a minute`);
    await new Promise((r) => setTimeout(r, 100));
  }

  // Team administration: a team, and a role of our own besides the built-in ones.
  const team = await api('POST', '/v1/api/create-team-master', { data: { name: 'Field team' } });
  const role = await api('POST', '/v1/api/create-role-master', { data: { name: 'Field sales' } });
  // My profile: a named API token to list and revoke.
  const token = await api('POST', '/v1/api/create-api-token', { data: { name: 'Spreadsheet sync for the regional sales reports', expires_in_days: 90 } });
  // Campaigns: an email template, and a bulk send of it to one lead (its report page).
  const template = await api('POST', '/v1/api/create-template-master', {
    data: { name: 'Second offer follow-up', subject: 'Our offer for {{company_name}}', body: 'Dear {{customer_name}},\n\nhere is **our second offer**.\n\n{{owner_name}}' },
  });
  const send = await api('POST', '/v1/api/lead/send-bulk-email', { data: { template_id: template.id, ids: [Number(lead)] } });

  const leadDoc = await firstHref(`/leads/${lead}`, /\/leads\/\d+\/documents\/\d+\/edit/);
  const clientDoc = await firstHref(`/clients/${client.id}`, /\/clients\/\d+\/documents\/\d+\/edit/);
  const reminder = await firstHref(`/leads/${lead}`, /\/reminders\/\d+\/edit/);
  const master = await firstHref('/settings/masters/source', /\/settings\/masters\/source\/\d+\/delete/);
  const user = await firstHref('/users?search=sales', /\/users\/\d+(?=")/);

  pages.push(
    { name: 'login', path: '/login', anonymous: true },
    { name: 'home', path: '/home' },
    { name: 'leads', path: '/leads' },
    { name: 'leads-filtered', path: '/leads?search=a&page_size=50' },
    { name: 'lead-new', path: '/leads/new' },
    { name: 'board', path: '/leads/board' },
    { name: 'lead', path: `/leads/${lead}` },
    { name: 'lead-edit', path: `/leads/${lead}/edit` },
    { name: 'lead-delete', path: `/leads/${lead}/delete` },
    { name: 'lead-document-edit', path: leadDoc },
    { name: 'lead-document-delete', path: leadDoc.replace(/edit$/, 'delete') },
    { name: 'reminder-edit', path: reminder },
    { name: 'reminder-delete', path: reminder.replace(/edit$/, 'delete') },
    { name: 'notifications', path: '/notifications' },
    { name: 'keep-in-touch', path: '/keep-in-touch' },
    { name: 'kit-edit', path: `/keep-in-touch/${kit.id}/edit` },
    { name: 'kit-delete', path: `/keep-in-touch/${kit.id}/delete` },
    { name: 'clients', path: '/clients' },
    { name: 'client-new', path: '/clients/new' },
    { name: 'client', path: `/clients/${client.id}` },
    { name: 'client-edit', path: `/clients/${client.id}/edit` },
    { name: 'client-delete', path: `/clients/${client.id}/delete` },
    { name: 'client-document-edit', path: clientDoc },
    { name: 'client-document-delete', path: clientDoc.replace(/edit$/, 'delete') },
    ...['stage', 'status', 'source', 'type', 'title', 'business_type', 'event_type'].map((k) => ({ name: `settings-${k}`, path: `/settings/masters/${k}` })),
    { name: 'settings-master-delete', path: master },
    { name: 'settings-stages', path: '/settings/stages' },
    { name: 'roles', path: '/roles' },
    { name: 'role', path: `/roles/${role.id}` },
    { name: 'role-delete', path: `/roles/${role.id}/delete` },
    { name: 'teams', path: '/teams' },
    { name: 'team', path: `/teams/${team.id}` },
    { name: 'settings-sso', path: '/settings/sso' },
    { name: 'settings-mail', path: '/settings/mail' },
    { name: 'emails', path: '/emails' },
    { name: 'templates', path: '/settings/templates' },
    { name: 'template-new', path: '/settings/templates/new' },
    { name: 'template', path: `/settings/templates/${template.id}` },
    { name: 'template-delete', path: `/settings/templates/${template.id}/delete` },
    { name: 'email-send', path: `/emails/sends/${send.id}` },
    { name: 'users', path: '/users' },
    { name: 'user-new', path: '/users/new' },
    { name: 'user', path: user },
    { name: 'user-edit', path: `${user}/edit` },
    { name: 'user-delete', path: `${user}/delete` },
    { name: 'security-log', path: '/security-log' },
    { name: 'profile', path: '/profile' },
    { name: 'profile-two-factor', path: '/profile/two-factor' },
    { name: 'profile-token-revoke', path: `/profile/tokens/${token.id}/revoke` },
    { name: 'forgot-password', path: '/forgot-password', anonymous: true },
    { name: 'reset-password-gone', path: '/reset-password/1.not-a-live-link', anonymous: true },
    { name: 'login-sso', path: '/login/sso?email=admin%40demo.test', anonymous: true },
    { name: 'imports', path: '/imports' },
    { name: 'import-new', path: '/imports/new' },
    { name: 'import-preview', path: `/imports/${waiting.id}` },
    { name: 'import-done', path: `/imports/${ran.id}` },
    { name: 'import-undo', path: `/imports/${ran.id}/undo` },
    { name: 'not-found', path: '/no-such-page', status: 404 },
    { name: 'm-login', path: '/m/login', anonymous: true, mobile: true },
    // The island's list, not the server's first render of it: axe must not run while one replaces the other.
    { name: 'm-list', path: '/m/leads-mobile', mobile: true, ready: '#app[data-mounted] li' },
    { name: 'm-add-lead', path: '/m/add-lead', mobile: true, ready: 'form' },
    { name: 'm-add-lead-address', path: '/m/add-lead-address', mobile: true, ready: 'form' },
  );
});

after(async () => {
  await Promise.allSettled([context?.close()]);
  await Promise.allSettled([browser?.close(), server?.stop()]);
});

// Runs in the page: what is wrong with its layout and its text.
function inspect(keys) {
  const vw = document.documentElement.clientWidth;
  const problems = [];
  const doc = document.documentElement.scrollWidth;
  if (doc > vw) problems.push(`the document is ${doc}px wide in a ${vw}px viewport`);
  const describe = (el) => {
    const id = el.id ? `#${el.id}` : '';
    const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
    const t = el.dataset?.testid ? `[data-testid=${el.dataset.testid}]` : '';
    return `${el.tagName.toLowerCase()}${id}${cls}${t}`;
  };
  // A region that scrolls sideways inside itself (overflow-x auto/scroll) may hold wider
  // content only when it says so (data-scroll-x, the board); a clipping region (hidden, clip)
  // hides what sticks out; anything else sticking out of the viewport is a fault.
  const contained = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const ox = getComputedStyle(p).overflowX;
      if (ox === 'hidden' || ox === 'clip') return true;
      if ((ox === 'auto' || ox === 'scroll') && p.hasAttribute('data-scroll-x')) return true;
    }
    return false;
  };
  let reported = 0;
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden' || cs.position === 'fixed') continue;
    if (el.closest('.sr-only, .skip, [hidden]')) continue;
    const out = r.right > vw + 1 || r.left < -1;
    if (out && !contained(el)) {
      if (reported++ < 8) problems.push(`${describe(el)} spans ${Math.round(r.left)}..${Math.round(r.right)}px of ${vw}px`);
    }
  }
  // Untranslated message ids: a known id, or a dotted camelCase id, in what a person reads.
  const texts = [document.body.innerText, document.title];
  for (const el of document.querySelectorAll('[placeholder], [aria-label], [title], img[alt]')) {
    texts.push(el.getAttribute('placeholder') || '', el.getAttribute('aria-label') || '', el.getAttribute('title') || '', el.getAttribute('alt') || '');
  }
  const ids = new Set();
  for (const t of texts) {
    for (const m of t.matchAll(/(?<![\w@./-])[a-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)+(?![\w@/-])/g)) {
      const s = m[0];
      const camel = s.split('.').length >= 2 && /[a-z][A-Z]/.test(s);
      if (keys.includes(s) || (camel && !/\.(pdf|png|csv|jpe?g|txt|com|test)$/i.test(s))) ids.add(s);
    }
  }
  return { problems, ids: [...ids] };
}

async function axe() {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')})`);
}

// everyPageAt checks every page at one size (PHONE or LAPTOP), in the test file that calls it.
export function everyPageAt(size) {
  test(`every page at ${size.viewport.width} × ${size.viewport.height}`, async (t) => {
    // The signed-in session, in a context with this size's screen (touch, mobile viewport).
    const sized = await browser.newContext({ locale: 'en-US', ...size, storageState: await context.storageState() });
    page = await sized.newPage();
    t.after(() => sized.close());
    if (SHOTS) mkdirSync(join(SHOTS, size.name), { recursive: true });
    const keys = [...KEYS];
    for (const p of pages) {
      await t.test(p.name, async () => {
        const ctx = p.anonymous ? await browser.newContext({ locale: 'en-US', ...size }) : context;
        const pg = p.anonymous ? await ctx.newPage() : page;
        const faults = [];
        const onConsole = (m) => {
          // The 404 page's own answer is logged as a failed resource: that one is expected.
          if (m.type() !== 'error' || (p.status && m.location()?.url === href(p.path))) return;
          faults.push(`console: ${m.text()}`);
        };
        const onError = (e) => faults.push(`page error: ${e.message}`);
        const onFailed = (r) => { if (!/ERR_ABORTED/.test(r.failure()?.errorText || '')) faults.push(`request failed: ${r.url()} ${r.failure()?.errorText}`); };
        const onResponse = (r) => {
          const want = r.request().isNavigationRequest() && r.frame() === pg.mainFrame() ? (p.status || 200) : 0;
          if (r.status() >= 400 && r.status() !== want) faults.push(`${r.status()} ${r.url()}`);
        };
        pg.on('console', onConsole);
        pg.on('pageerror', onError);
        pg.on('requestfailed', onFailed);
        pg.on('response', onResponse);
        try {
          const res = await pg.goto(href(p.path), { waitUntil: 'load' });
          assert.equal(res?.status(), p.status || 200, `${p.path} answered ${res?.status()}`);
          if (p.ready) await pg.waitForSelector(p.ready, { timeout: 15000 });
          if (p.mobile) await pg.waitForLoadState('networkidle', { timeout: 3000 }).catch(() => {});
          if (SHOTS) await pg.screenshot({ path: join(SHOTS, size.name, `${p.name}.png`), fullPage: true });
          const { problems, ids } = await pg.evaluate(inspect, keys);
          const untranslated = ids;
          const violations = p.anonymous ? await axeIn(pg) : await axe();
          const all = [...problems, ...faults, ...untranslated.map((id) => `untranslated message id on the page: ${id}`), ...violations];
          assert.deepEqual(all, [], `${p.path} at ${size.viewport.width}px:\n  ${all.join('\n  ')}`);
        } finally {
          pg.off('console', onConsole);
          pg.off('pageerror', onError);
          pg.off('requestfailed', onFailed);
          pg.off('response', onResponse);
          if (p.anonymous) await ctx.close();
        }
      });
    }
  });
}

async function axeIn(pg) {
  const prev = page;
  page = pg;
  try {
    return await axe();
  } finally {
    page = prev;
  }
}
