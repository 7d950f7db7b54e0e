// What the browser tests of the mobile lead manager share (mobile-list.test.mjs: sign-in,
// the lead list, search, sort and filter; mobile-add.test.mjs: the two add-lead steps with
// every message of the spec, the offline queue behind a service worker, a chaos run against
// the sync, and the bytes a load costs). Two files, so that each stays well inside the
// runner's time limit for a file on a slow machine.
//
// One server for each file that imports this. The browser talks to it through a byte-counting proxy
// (mobile-proxy.mjs) that can also play a dead network, so "offline" means no byte reaches
// the server, for the page and for its service worker alike.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, SALES } from './harness.mjs';
import { startProxy } from './mobile-proxy.mjs';

export const FIRST_LOAD_BUDGET = 120 * 1024;
export const REPEAT_LOAD_BUDGET = 10 * 1024;
export const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true, locale: 'en-US' };
export const LIST = '/m/leads-mobile';
export const SCREENS = ['/m/leads-mobile', '/m/add-lead', '/m/add-lead-address'];

export let server;
export let proxy;
export let browser;

before(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  proxy = await startProxy(server.url);
});

after(async () => {
  await Promise.allSettled([browser?.close(), proxy?.close()]);
  await server?.stop();
});

export const run = Date.now().toString(36);
let seq = 0;
/** unique returns a fresh lead's values: names, email and a 10-digit phone no other lead has. */
export function unique(tag) {
  seq++;
  const n = `${run}${seq}`;
  return {
    name: `${tag} Person ${n}`,
    company: `${tag} Company ${n}`,
    email: `${tag.toLowerCase()}.${n}@example.com`,
    phone: String(7000000000 + ((Date.now() + seq * 7919) % 999999999)).slice(0, 10),
  };
}

/** phone opens a phone-sized context whose page records alerts (and accepts them). */
export async function phone(options = {}) {
  const context = await browser.newContext({ ...PHONE, baseURL: proxy.url, ...options });
  const page = await context.newPage();
  const alerts = [];
  page.on('dialog', async (d) => {
    alerts.push(d.message());
    await d.accept();
  });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  keepTrail(page);
  return { context, page, alerts, errors };
}

// What a page asked the API and said on its console, the last entries of it, for a failed
// wait to report (cardsShown): a failure in CI then says what the list was doing.
const trails = new WeakMap();
function keepTrail(page) {
  const trail = [];
  trails.set(page, trail);
  const note = (line) => {
    trail.push(`${new Date().toISOString().slice(11, 23)} ${line}`);
    if (trail.length > 40) trail.shift();
  };
  const api = (url) => url.includes('/v1/api/');
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') note(`console.${m.type()}: ${m.text()}`); });
  page.on('request', (r) => { if (api(r.url())) note(`→ ${r.method()} ${r.url()}`); });
  page.on('response', (r) => { if (api(r.url())) note(`← ${r.status()} ${r.url()}`); });
  page.on('requestfailed', (r) => note(`✗ ${r.url()}: ${r.failure()?.errorText}`));
}

/**
 * cardsShown waits until the list shows n cards. When it does not, the error says what the
 * list showed instead (its cards and first customers, the loading and empty states, the
 * notes) and the page's last API calls and console errors (listShows).
 */
export async function cardsShown(page, n) {
  await listShows(page, (want) => document.querySelectorAll('[data-testid=lead-card]').length === want, n, `${n} cards`);
}

/**
 * customersShown waits until the list's cards are those of the customers named, in that
 * order: the list a query asked for, not the one on screen before it (which may have as
 * many cards while the new one loads).
 */
export async function customersShown(page, names) {
  await listShows(page, (want) => JSON.stringify([...document.querySelectorAll('[data-testid=lead-customer]')]
    .map((e) => e.textContent)) === want, JSON.stringify(names), `the customers ${JSON.stringify(names)}`);
}

/** listShows waits until shows(arg) holds in the page; when it does not, it says what the list showed. */
async function listShows(page, shows, arg, wanted) {
  try {
    await page.waitForFunction(shows, arg);
  } catch (err) {
    const seen = await page.evaluate(() => {
      const has = (id) => document.querySelector(`[data-testid=${id}]`) !== null;
      return {
        cards: document.querySelectorAll('[data-testid=lead-card]').length,
        customers: [...document.querySelectorAll('[data-testid=lead-customer]')].map((e) => e.textContent).slice(0, 5),
        loading: has('list-loading'), empty: has('list-empty'), cacheNote: has('cache-note'), offlineNote: has('offline-note'),
        sortPanel: has('sort-panel'), filterPanel: has('filter-panel'), url: location.href,
      };
    }).catch((e) => `unreadable: ${e.message}`);
    err.message += `\nwanted ${wanted}; the page showed ${JSON.stringify(seen)}\n${(trails.get(page) ?? []).join('\n')}`;
    throw err;
  }
}

/** signIn goes through the mobile sign-in page and makes the user's language English. */
export async function signIn(page, next = LIST) {
  await page.goto(next);
  assert.equal(new URL(page.url()).pathname, '/m/login');
  await page.fill('#email', SALES.email);
  await page.fill('#password', SALES.password);
  await Promise.all([page.waitForURL((u) => u.pathname === next), page.click('[data-testid=login-submit]')]);
  const r = await page.request.post('/language', { form: { locale: 'en_US', back: next }, maxRedirects: 0 });
  assert.equal(r.status(), 303);
  await page.goto(next);
}

/** api calls the JSON API with the page's session. */
export async function api(page, path) {
  const r = await page.request.get(path, { headers: { Accept: 'application/json' } });
  assert.equal(r.status(), 200, `${path}: ${await r.text()}`);
  return (await r.json()).data;
}

export async function serverLeads(page, search) {
  return api(page, `/v1/api/lead/list-customer-lead?limit=100&search=${encodeURIComponent(search)}`);
}

export async function createViaAPI(page, v, extra = {}) {
  const types = await api(page, '/v1/api/dropdown-lead-type-master');
  const addr = { flatNo: '1A', street: 'Main Road', city: 'Chennai', state: 'Tamil Nadu', zip: '600001', country: 'India' };
  const r = await page.request.post('/v1/api/lead/create-customer-lead', {
    headers: { Accept: 'application/json' },
    data: {
      customer_title: 'Mr.', customer_name: v.name, company_name: v.company, company_email: v.email,
      company_phone_number: v.phone, company_type_id: 35, lead_source_id: 6, lead_status_id: 1, lead_stage_id: 1,
      tenant_id: 1, billing_address: addr, shipping_address: addr, createdAt: new Date().toISOString(),
      lead_type_id: types[0].value, ...extra,
    },
  });
  assert.equal(r.status(), 201, await r.text());
  return (await r.json()).data;
}

/**
 * readStored reads one key of the phone's store straight from its IndexedDB: null when the
 * key, or the store itself, is not there yet (the app creates the store when it first keeps
 * something, which may come after the list shows: its first page is in the HTML). It always
 * settles and always closes its connection: a connection left open would block the app's
 * next change of the database's version, and every open after it, for good.
 */
export const readStored = (page, key) => page.evaluate((k) => new Promise((resolve, reject) => {
  const open = indexedDB.open('crm-mobile');
  open.onerror = () => reject(open.error);
  open.onblocked = () => reject(new Error('opening crm-mobile was blocked'));
  open.onsuccess = () => {
    const db = open.result;
    if (!db.objectStoreNames.contains('leads')) {
      db.close();
      resolve(null);
      return;
    }
    try {
      const get = db.transaction('leads', 'readonly').objectStore('leads').get(k);
      get.onsuccess = () => { db.close(); resolve(get.result ?? null); };
      get.onerror = () => { db.close(); reject(get.error); };
    } catch (e) {
      db.close();
      reject(e);
    }
  };
}), key);

/** readQueue reads the offline leads from the phone. */
export const readQueue = async (page) => (await readStored(page, 'offlineLeads')) || [];

/** storedSoon waits until the app has kept key on the phone, and returns it. */
export async function storedSoon(page, key) {
  for (let i = 0; ; i++) {
    const v = await readStored(page, key);
    if (v !== null) return v;
    assert.ok(i < 200, `${key} was not kept on the phone`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * listReady waits until the island has taken the list over and it has loaded (cards or the
 * empty message). The server's first render has the same search field and buttons, but no
 * script listens to them: text filled in before the island mounts is lost with that render.
 */
export async function listReady(page) {
  await page.waitForSelector('#app[data-mounted]');
  await page.waitForSelector('[data-testid=lead-list], [data-testid=list-empty]');
  await page.locator('[data-testid=list-loading]').waitFor({ state: 'detached' });
}

/**
 * openListHeld opens the list with the app's bundle (its preload and its script) held back:
 * the server's render is on screen and no island has mounted. The returned function lets
 * the bundle through.
 */
export async function openListHeld(page) {
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  const bundle = /\/mobile-[A-Z0-9]+\.js/;
  await page.route(bundle, async (route) => { await held; await route.continue(); });
  await page.goto(LIST, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('[data-testid=lead-list]');
  assert.equal(await page.getAttribute('#app', 'data-mounted'), null, 'the island is not there yet');
  return async () => {
    release();
    await page.waitForSelector('#app[data-mounted]');
    await page.unroute(bundle);
  };
}

export const texts = async (loc) => (await loc.allInnerTexts()).map((s) => s.trim());

export async function fillStep1(page, v, { type = 1, source = 1 } = {}) {
  await page.fill('#leadName', v.name);
  await page.fill('#company', v.company);
  await page.fill('#email', v.email);
  await page.fill('#phone', v.phone);
  await page.locator('#leadType option').nth(type).waitFor({ state: 'attached' });
  await page.selectOption('#leadType', { index: type });
  await page.selectOption('#leadSource', { index: source });
}

export async function fillBilling(page, a = { flatNo: '12B', street: 'MG Road', city: 'Chennai', state: 'Tamil Nadu', zip: '600001', country: 'India' }) {
  for (const [f, val] of Object.entries(a)) await page.fill(`#billing-${f}`, val);
}

/** addLead goes through both steps from the list and submits. */
export async function addLead(page, v) {
  await page.click('[data-testid=add-lead]');
  await page.waitForSelector('[data-testid=step1-form]');
  await fillStep1(page, v);
  await page.click('[data-testid=step1-next]');
  await page.waitForSelector('[data-testid=step2-form]');
  await fillBilling(page);
  await page.check('[data-testid=same-as-billing]');
  await page.click('[data-testid=step2-submit]');
  await page.waitForURL((u) => u.pathname === LIST);
}

/**
 * swReady waits for the service worker to be active and to hold the screens, the bundle and
 * the page's message file, and for the masters on the phone: all the app needs to open, and
 * add a lead, offline.
 */
export async function swReady(page) {
  await page.evaluate(async (screens) => {
    const reg = await navigator.serviceWorker.ready;
    let keys = [];
    for (let i = 0; i < 200; i++) {
      keys = (await (await caches.open('crm-mobile-v1')).keys()).map((r) => new URL(r.url).pathname + new URL(r.url).search);
      const lang = document.documentElement.lang;
      if (reg.active && screens.every((s) => keys.includes(s)) &&
          keys.some((k) => k.startsWith('/static/build/mobile-')) && keys.some((k) => k.startsWith(`/locales/mobile/${lang}.json`))) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`the service worker did not take the page or keep the screens: controller ${!!navigator.serviceWorker.controller}, kept ${keys.join(' ')}`);
  }, SCREENS);
  // The app fetches the masters (lead types, sources) at its first start so the add-lead
  // form works offline; the list now paints before that call answers, so wait for them too.
  await storedSoon(page, 'masters');
}

export async function quiet(ms = 800) {
  let last = -1;
  for (let i = 0; i < 50; i++) {
    const now = proxy.bytes().down + proxy.bytes().up;
    if (now === last) return;
    last = now;
    await new Promise((r) => setTimeout(r, ms));
  }
}

