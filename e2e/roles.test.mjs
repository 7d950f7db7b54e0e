// Team administration in a real browser: build the Sales role's matrix (leads viewed by
// team), put the administrator and the sales user in a team, and see the sales user's lead
// list change; take the administrator out again and see it shrink back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, login, ADMIN, SALES } from './harness.mjs';

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
  await login(page, server.url, who.email, who.password);
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
