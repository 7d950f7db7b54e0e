// The mobile lead manager in a phone-sized Chromium: sign-in, the lead list, search, sort
// and filter, and what the list keeps of what the user did before its bundle ran.
// Shared set-up and helpers: mobile.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SALES } from './harness.mjs';
import {
  PHONE, LIST, SCREENS, run, server, proxy, browser, unique, phone, signIn, api, serverLeads, createViaAPI, storedSoon, listReady, cardsShown, customersShown, openListHeld, texts, swReady,
} from './mobile.mjs';

test('the sign-in page is phone-sized and leads back where the user was going', async () => {
  const { context, page } = await phone();
  try {
    await page.goto('/m/add-lead');
    const url = new URL(page.url());
    assert.equal(url.pathname, '/m/login');
    assert.equal(url.searchParams.get('next'), '/m/add-lead');
    assert.match(await page.getAttribute('meta[name=viewport]', 'content'), /width=device-width/);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `sign-in page is ${width}px wide`);
    await page.fill('#email', SALES.email);
    await page.fill('#password', SALES.password);
    await Promise.all([page.waitForURL((u) => u.pathname === '/m/add-lead'), page.click('[data-testid=login-submit]')]);
    await page.waitForSelector('[data-testid=step1-form]');
    // /m/ and unknown paths go to the list.
    await page.goto('/m/');
    assert.equal(new URL(page.url()).pathname, LIST);
    await page.goto('/m/no/such/screen');
    assert.equal(new URL(page.url()).pathname, LIST);
  } finally {
    await context.close();
  }
});

test('the lead list shows the header, the menu, the real won/lost counts and the cards', async () => {
  const { context, page, errors } = await phone();
  try {
    await signIn(page);
    await listReady(page);
    assert.equal((await page.textContent('h1')).trim(), 'Leads');
    assert.equal(await page.getAttribute('html', 'lang'), 'en');

    const data = await api(page, '/v1/api/lead/list-customer-lead?page=1&limit=20');
    const won = (await page.innerText('[data-testid=leads-won]')).replace(/\s+/g, ' ').trim();
    const lost = (await page.innerText('[data-testid=leads-lost]')).replace(/\s+/g, ' ').trim();
    assert.equal(won, `${data.summary.won} Leads Won`);
    assert.equal(lost, `${data.summary.lost} Leads Lost`);

    // Page size 20 from page 1, newest first, each card with the spec's fields.
    const cards = page.locator('[data-testid=lead-card]');
    assert.equal(await cards.count(), Math.min(20, data.total));
    const first = data.result[0];
    const card = cards.first();
    assert.equal((await card.locator('[data-testid=lead-id]').innerText()).trim(), `Lead ID: ${first.id}`);
    assert.equal((await card.locator('[data-testid=lead-status]').innerText()).trim(), first.lead_status_name);
    assert.equal((await card.locator('[data-testid=lead-company]').innerText()).trim(), first.company_name);
    assert.equal((await card.locator('[data-testid=lead-customer]').innerText()).trim(), first.customer_name);
    assert.equal((await card.locator('[data-testid=lead-phone]').innerText()).trim(),
      [first.company_dial_code, first.company_phone_number].filter(Boolean).join(' '));
    assert.equal((await card.locator('[data-testid=lead-email]').innerText()).trim(), first.company_email);
    assert.equal((await card.locator('[data-testid=lead-stage]').innerText()).trim(), first.lead_stage_name);
    assert.equal((await card.locator('[data-testid=lead-source]').innerText()).trim(), first.lead_source_name);
    assert.equal((await card.locator('[data-testid=lead-creator]').innerText()).trim(), `Created by ${first.created_user_name}`);

    // The plus button goes to add-lead.
    await page.click('[data-testid=add-lead]');
    await page.waitForURL((u) => u.pathname === '/m/add-lead');
    await page.goBack();
    await listReady(page);

    // The menu, by keyboard: profile block from /auth/me, the spec's items, two toggles, one link.
    const me = await api(page, '/v1/api/auth/me');
    await page.focus('[data-testid=menu-button]');
    await page.keyboard.press('Enter');
    const menu = page.locator('[data-testid=side-menu]');
    await menu.waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Close menu');
    assert.equal((await page.textContent('[data-testid=profile-name]')).trim(), me.user.name);
    assert.match(await page.textContent('[data-testid=profile-phone]'), new RegExp(me.user.phone));
    assert.match(await page.textContent('[data-testid=profile-email]'), new RegExp(me.user.email.replace('.', '\\.')));
    const visibleItems = async () => (await texts(menu.locator('nav .m-menu-item:visible')));
    assert.deepEqual(await visibleItems(), ['Home', 'Leads', 'Requirements', 'Clients', 'Proposal', 'Quotation', 'Orders',
      'Agreements', 'Items', 'Expenses', 'Timesheet', 'Payment', 'Settings', 'Sign out']);
    await page.click('[data-testid=menu-requirements-toggle]');
    assert.equal(await page.getAttribute('[data-testid=menu-requirements-toggle]', 'aria-expanded'), 'true');
    await page.click('[data-testid=menu-clients-toggle]');
    assert.deepEqual(await visibleItems(), ['Home', 'Leads', 'Requirements', 'Sub Requirement 1', 'Sub Requirement 2', 'Clients',
      'Client 1', 'Client 2', 'Proposal', 'Quotation', 'Orders', 'Agreements', 'Items', 'Expenses', 'Timesheet', 'Payment', 'Settings', 'Sign out']);
    await page.click('[data-testid=menu-requirements-toggle]');
    assert.equal(await page.isVisible('text=Sub Requirement 1'), false);
    assert.equal(await page.isVisible('text=Client 1'), true);
    const links = await menu.locator('a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    assert.deepEqual(links, [LIST]);
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'menu-button');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('the list\'s first page is in the HTML before any script runs; the island takes it over without a flash or a shift', async () => {
  // Without JavaScript: the page exactly as the server sent it.
  const plain = await browser.newContext({ ...PHONE, baseURL: proxy.url, javaScriptEnabled: false });
  try {
    const r = await plain.request.post('/m/login', { form: { email: SALES.email, password: SALES.password, next: LIST }, maxRedirects: 0 });
    assert.equal(r.status(), 303);
    const page = await plain.newPage();
    await page.goto(LIST);
    const data = await api(page, '/v1/api/lead/list-customer-lead?page=1&limit=20');
    assert.ok(data.total > 0);
    assert.equal(await page.getAttribute('#app', 'data-mounted'), null, 'no script ran');
    const cards = page.locator('[data-testid=lead-card]');
    assert.equal(await cards.count(), Math.min(20, data.total));
    const first = cards.first();
    assert.equal((await first.locator('[data-testid=lead-id]').innerText()).trim(), `Lead ID: ${data.result[0].id}`);
    assert.equal((await first.locator('[data-testid=lead-creator]').innerText()).trim(), `Created by ${data.result[0].created_user_name}`);
    assert.deepEqual(await texts(page.locator('[data-testid=lead-email]')), data.result.map((l) => l.company_email));
    assert.equal((await page.innerText('[data-testid=leads-won]')).replace(/\s+/g, ' ').trim(), `${data.summary.won} Leads Won`);
    assert.equal(await page.getAttribute('[data-testid=search]', 'placeholder'), 'Search');
  } finally {
    await plain.close();
  }

  // With JavaScript: the island's first render is that list. "Loading leads..." never
  // shows, nothing moves, and the first page is not asked for again.
  const { context, page, errors } = await phone({ serviceWorkers: 'block' });
  try {
    await signIn(page);
    await listReady(page);
    await page.addInitScript(() => {
      const seen = { loading: false, shift: 0 };
      window.__seen = seen;
      new MutationObserver(() => {
        if (document.querySelector('[data-testid=list-loading]')) seen.loading = true;
      }).observe(document, { childList: true, subtree: true });
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) if (!e.hadRecentInput) seen.shift += e.value;
      }).observe({ type: 'layout-shift', buffered: true });
    });
    const asked = [];
    page.on('request', (r) => { if (new URL(r.url()).pathname.endsWith('/list-customer-lead')) asked.push(r.url()); });
    // Drop the list kept on the phone, to see the page's first page kept again (once the
    // app has kept it: before, the store may not even be there).
    await storedSoon(page, 'onlineLeads');
    await page.evaluate(() => new Promise((resolve, reject) => {
      const open = indexedDB.open('crm-mobile');
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const tx = open.result.transaction('leads', 'readwrite');
        tx.objectStore('leads').delete('onlineLeads');
        tx.oncomplete = () => { open.result.close(); resolve(); };
        tx.onerror = () => reject(tx.error);
      };
    }));
    await page.reload();
    await page.waitForSelector('#app[data-mounted]');
    const data = await api(page, '/v1/api/lead/list-customer-lead?page=1&limit=20');
    assert.deepEqual(await texts(page.locator('[data-testid=lead-email]')), data.result.map((l) => l.company_email));
    // Kept on the phone for offline use, as a load from the server would.
    assert.deepEqual((await storedSoon(page, 'onlineLeads')).result.map((l) => l.id), data.result.map((l) => l.id));
    const seen = await page.evaluate(() => window.__seen);
    assert.equal(seen.loading, false, '"Loading leads..." flashed');
    assert.equal(seen.shift, 0, `layout shift ${seen.shift}`);
    assert.deepEqual(asked, [], 'the first page was asked for again');
    // The island works on it: a search asks the server.
    await page.fill('[data-testid=search]', data.result[0].company_email);
    await cardsShown(page, 1);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('the screens the service worker keeps hold no lead, before and after sign-out', async () => {
  const { context, page } = await phone();
  try {
    await signIn(page);
    await listReady(page);
    await swReady(page);
    const data = await api(page, '/v1/api/lead/list-customer-lead?page=1&limit=20');
    const emails = data.result.map((l) => l.company_email);
    assert.ok(emails.length > 0);
    // The page itself, from the network through the worker, carries them.
    const res = await page.reload();
    assert.equal(res.fromServiceWorker(), true);
    assert.ok((await res.text()).includes(emails[0]));
    await listReady(page);
    const kept = () => page.evaluate(async (screens) => {
      const cache = await caches.open('crm-mobile-v1');
      return Promise.all(screens.map(async (s) => (await cache.match(s))?.text() ?? null));
    }, SCREENS);
    const noLeads = (shells, when) => {
      for (const [i, html] of shells.entries()) {
        assert.ok(html?.includes('data-island="mobile-app"'), `${when}: ${SCREENS[i]} not kept`);
        assert.ok(!html.includes('m-first-page'), `${when}: ${SCREENS[i]} kept with the data block`);
        for (const e of emails) assert.ok(!html.includes(e), `${when}: ${SCREENS[i]} kept with ${e}`);
      }
    };
    noLeads(await kept(), 'signed in');

    await page.click('[data-testid=menu-button]');
    await Promise.all([page.waitForURL((u) => u.pathname === '/m/login'), page.click('[data-testid=sign-out]')]);
    noLeads(await kept(), 'signed out');

    // Offline and signed out, the kept list opens with no lead at all.
    proxy.setDown(true);
    await context.setOffline(true);
    try {
      const off = await page.goto(LIST);
      assert.equal(off.fromServiceWorker(), true);
      await page.getByText('No leads found', { exact: true }).waitFor();
      assert.equal(await page.locator('[data-testid=lead-card]').count(), 0);
    } finally {
      proxy.setDown(false);
      await context.setOffline(false);
    }
  } finally {
    await context.close();
  }
});

test('a card shows Unknown without a status and N/A without a source; Loading and No leads found', async () => {
  const { context, page } = await phone({ serviceWorkers: 'block' });
  try {
    await signIn(page);
    await listReady(page);
    // The server always fills both (it falls back to the tenant's defaults): blank them in
    // one real answer to see how the card shows a lead that has neither.
    let release;
    const held = new Promise((r) => { release = r; });
    await page.route('**/v1/api/lead/list-customer-lead?*', async (route) => {
      await held;
      const res = await route.fetch();
      const body = await res.json();
      body.data.result[0].lead_status_name = '';
      body.data.result[0].lead_source_name = '';
      await route.fulfill({ response: res, json: body });
    });
    // The first page comes with the page itself: a sort asks the server.
    await page.click('[data-testid=sort-button]');
    await page.click('[data-testid=sort-name]');
    await page.getByText('Loading leads...', { exact: true }).waitFor();
    release();
    await listReady(page);
    const card = page.locator('[data-testid=lead-card]').first();
    assert.equal((await card.locator('[data-testid=lead-status]').innerText()).trim(), 'Unknown');
    assert.equal((await card.locator('[data-testid=lead-source]').innerText()).trim(), 'N/A');
    await page.unroute('**/v1/api/lead/list-customer-lead?*');

    await page.fill('[data-testid=search]', `nothing-matches-${run}`);
    await page.getByText('No leads found', { exact: true }).waitFor();
    assert.equal(await page.locator('[data-testid=lead-card]').count(), 0);
    await page.click('[data-testid=search-clear]');
    assert.equal(await page.inputValue('[data-testid=search]'), '');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'lead-search');
    await listReady(page);
    assert.ok(await page.locator('[data-testid=lead-card]').count() > 0);
  } finally {
    await context.close();
  }
});

test('more leads load as the user scrolls, 20 at a time', async () => {
  const { context, page } = await phone({ serviceWorkers: 'block' });
  try {
    await signIn(page);
    let total = (await api(page, '/v1/api/lead/list-customer-lead?limit=1')).total;
    for (; total <= 45; total++) await createViaAPI(page, unique('Scroll'));
    const pages = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname.endsWith('/list-customer-lead')) pages.push([u.searchParams.get('page'), u.searchParams.get('limit')]);
    });
    await page.reload();
    await listReady(page);
    const cards = page.locator('[data-testid=lead-card]');
    assert.equal(await cards.count(), 20);
    assert.deepEqual(pages, [], 'page 1 came with the page');
    await cards.last().scrollIntoViewIfNeeded();
    await cardsShown(page, 40);
    await page.locator('[data-testid=lead-card]').last().scrollIntoViewIfNeeded();
    await cardsShown(page, Math.min(60, total));
    assert.deepEqual(pages.slice(0, 2), [['2', '20'], ['3', '20']]);
    const ids = await page.locator('[data-testid=lead-id]').allInnerTexts();
    assert.equal(new Set(ids).size, ids.length, 'no lead shows twice');
  } finally {
    await context.close();
  }
});

test('sort and filter panels are never open together; sort and filter ask the server', async () => {
  const { context, page } = await phone({ serviceWorkers: 'block' });
  // Nobody scrolls here: every list asked for is a first page.
  const further = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname.endsWith('/list-customer-lead') && u.searchParams.get('page') !== '1') further.push(u.search);
  });
  try {
    await signIn(page);
    await listReady(page);
    const sortPanel = page.locator('[data-testid=sort-panel]');
    const filterPanel = page.locator('[data-testid=filter-panel]');
    await page.click('[data-testid=sort-button]');
    assert.equal(await sortPanel.isVisible(), true);
    assert.equal(await filterPanel.count(), 0);
    assert.deepEqual(await texts(sortPanel.locator('label')), ['Recent', 'Name', 'Stage']);
    await page.click('[data-testid=filter-button]');
    assert.equal(await filterPanel.isVisible(), true);
    assert.equal(await sortPanel.count(), 0);
    await page.click('[data-testid=sort-button]');
    assert.equal(await sortPanel.isVisible(), true);
    assert.equal(await filterPanel.count(), 0);
    await page.click('[data-testid=sort-button]');
    assert.equal(await sortPanel.count(), 0);

    // Sort by name: the order the server gives.
    await page.click('[data-testid=sort-button]');
    await page.click('[data-testid=sort-name]');
    assert.equal(await sortPanel.count(), 0, 'choosing closes the panel');
    await listReady(page);
    const byName = await api(page, '/v1/api/lead/list-customer-lead?page=1&limit=20&sort=name');
    await customersShown(page, byName.result.map((l) => l.customer_name));

    // Filter: both dropdowns start at All and list the tenant's masters.
    await page.click('[data-testid=filter-button]');
    const stages = await api(page, '/v1/api/dropdown-lead-stage-master');
    const statuses = await api(page, '/v1/api/dropdown-lead-status-master');
    await page.locator('#filter-stage option').nth(stages.length).waitFor({ state: 'attached' });
    assert.deepEqual(await texts(page.locator('#filter-stage option')), ['All', ...stages.map((s) => s.label)]);
    assert.deepEqual(await texts(page.locator('#filter-status option')), ['All', ...statuses.map((s) => s.label)]);
    assert.deepEqual(await texts(page.locator('[data-testid=filter-panel] button')), ['Reset', 'Apply']);
    const won = stages.find((s) => s.label === 'Won');
    await page.selectOption('#filter-stage', String(won.value));
    await page.click('[data-testid=filter-apply]');
    assert.equal(await filterPanel.count(), 0);
    const wonLeads = await api(page, `/v1/api/lead/list-customer-lead?page=1&limit=20&sort=name&stage_id=${won.value}`);
    assert.ok(wonLeads.result.length > 0);
    await customersShown(page, wonLeads.result.map((l) => l.customer_name));
    for (const s of await texts(page.locator('[data-testid=lead-stage]'))) assert.equal(s, 'Won');
    await page.click('[data-testid=filter-button]');
    assert.equal(await page.inputValue('#filter-stage'), String(won.value));
    await page.click('[data-testid=filter-reset]');
    await listReady(page);
    await customersShown(page, byName.result.map((l) => l.customer_name));
    assert.deepEqual(further, [], 'only first pages were asked for');
  } finally {
    await context.close();
  }
});

test('a late report that the end of the list was in view asks for no page once the end has moved away', async () => {
  const { context, page } = await phone({ serviceWorkers: 'block' });
  // A busy phone: the page holds the observer's reports back until the test lets them go,
  // and notes every URL it fetches, synchronously.
  await context.addInitScript(() => {
    const Native = window.IntersectionObserver;
    const io = { hold: false, queue: [], fetched: [] };
    window.__io = io;
    window.IntersectionObserver = class extends Native {
      constructor(cb, options) {
        super((entries, observer) => {
          const run = () => cb(entries, observer);
          if (io.hold) io.queue.push({ inView: entries.some((e) => e.isIntersecting), run });
          else run();
        }, options);
      }
    };
    const nativeFetch = window.fetch.bind(window);
    window.fetch = (input, init) => {
      io.fetched.push(String(input instanceof Request ? input.url : input));
      return nativeFetch(input, init);
    };
  });
  try {
    await signIn(page);
    let total = (await api(page, '/v1/api/lead/list-customer-lead?limit=1')).total;
    for (; total <= 20; total++) await createViaAPI(page, unique('Late'));
    await page.reload();
    await listReady(page);
    await page.evaluate(() => { window.__io.hold = true; });
    // The list by name is answered only once the end of the list, under "Loading", was
    // reported in view: that report then arrives after the 20 cards pushed the end away.
    await page.route(/\/list-customer-lead\?.*sort=name/, async (route) => {
      await page.waitForFunction(() => window.__io.queue.some((q) => q.inView));
      await route.continue();
    });
    await page.click('[data-testid=sort-button]');
    // The 20 cards to wait for are the list by name's: until the list renders "Loading", the
    // default list's 20 are still on screen.
    const answered = page.waitForResponse(/\/list-customer-lead\?.*sort=name/);
    await page.click('[data-testid=sort-name]');
    await answered;
    await cardsShown(page, 20);
    const asked = await page.evaluate(async () => {
      window.__io.hold = false;
      for (const q of window.__io.queue.splice(0)) q.run();
      await new Promise((resolve) => setTimeout(resolve)); // the promise jobs the reports started
      return window.__io.fetched.filter((u) => u.includes('/list-customer-lead') && !/[?&]page=1(&|$)/.test(u));
    });
    assert.deepEqual(asked, [], 'no next page while the end of the list is out of view');
    assert.equal(await page.locator('[data-testid=lead-card]').count(), 20);
  } finally {
    await context.close();
  }
});

test('search finds a lead by id, company, customer, email, phone, stage and status, any case', async () => {
  const { context, page } = await phone({ serviceWorkers: 'block' });
  try {
    await signIn(page);
    const v = unique('Search');
    const lead = await createViaAPI(page, v);
    await page.reload();
    await listReady(page);
    const terms = {
      id: String(lead.id), company: v.company.toUpperCase(), customer: v.name.toLowerCase(), email: v.email.toUpperCase(),
      phone: v.phone, stage: lead.lead_stage_name.toUpperCase(), status: lead.lead_status_name.toLowerCase(),
    };
    for (const [field, term] of Object.entries(terms)) {
      const answered = page.waitForResponse((r) => new URL(r.url()).pathname.endsWith('/list-customer-lead') &&
        new URL(r.url()).searchParams.get('search') === term);
      await page.fill('[data-testid=search]', term);
      await answered;
      await listReady(page);
      const shown = await texts(page.locator('[data-testid=lead-id]'));
      assert.ok(shown.includes(`Lead ID: ${lead.id}`), `search by ${field} (${term}) did not show lead ${lead.id}`);
      const server = await serverLeads(page, term);
      assert.ok(server.result.some((l) => l.id === lead.id), `server search by ${field}`);
      if (['company', 'customer', 'email', 'phone'].includes(field)) assert.deepEqual(shown, [`Lead ID: ${lead.id}`], field);
      else assert.equal(shown.length, Math.min(20, server.total), field);
    }
  } finally {
    await context.close();
  }
});

test('text typed into the server-drawn search field before the island mounts is kept, focused and searched for', async () => {
  const { context, page } = await phone({ serviceWorkers: 'block' });
  try {
    await signIn(page);
    const v = unique('Early');
    const lead = await createViaAPI(page, v);
    const release = await openListHeld(page);
    await page.fill('[data-testid=search]', v.company);
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname.endsWith('/list-customer-lead') &&
      new URL(r.url()).searchParams.get('search') === v.company);
    await release();
    await answered;
    await listReady(page);
    assert.equal(await page.inputValue('[data-testid=search]'), v.company);
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'search', 'the focus stayed in the field');
    await cardsShown(page, 1);
    assert.deepEqual(await texts(page.locator('[data-testid=lead-id]')), [`Lead ID: ${lead.id}`]);
  } finally {
    await context.close();
  }
});

test('a tap on sort, filter or the menu before the island mounts opens it once the island is there', async () => {
  const { context, page } = await phone({ serviceWorkers: 'block' });
  try {
    await signIn(page);
    for (const [button, opened] of [['filter-button', 'filter-panel'], ['sort-button', 'sort-panel'], ['menu-button', 'side-menu']]) {
      const release = await openListHeld(page);
      await page.click(`[data-testid=${button}]`);
      await release();
      await page.locator(`[data-testid=${opened}]`).waitFor();
      if (opened === 'filter-panel') {
        // The filter's choices come as a tap after the island mounted would bring them.
        const stages = await api(page, '/v1/api/dropdown-lead-stage-master');
        await page.locator('#filter-stage option').nth(stages.length).waitFor({ state: 'attached' });
      }
      assert.equal(await page.getAttribute(`[data-testid=${button}]`, 'aria-expanded'), 'true', button);
    }
  } finally {
    await context.close();
  }
});
