// Shared helpers for the browser tests: start the real server on a fresh SQLite database,
// launch the system Chromium, sign in, and measure what a page load costs on the wire.
//
// Run with `npx just e2e` (builds first) or `node --test --test-concurrency=1 e2e/`.
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BINARY = join(ROOT, 'bin', 'crm');
export const CHROMIUM = '/usr/bin/chromium';

// Demo tenant sign-ins (created by `crm serve --demo`).
export const ADMIN = { email: 'admin@demo.test', password: 'Admin@12345' };
export const SALES = { email: 'sales@demo.test', password: 'Sales@12345' };

const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 25_000; // the server gives in-flight requests up to 20 s
const READY_LINE = /CRM is running at (http:\/\/\S+)/;

/**
 * Start bin/crm on a random port with a fresh SQLite database in a temp directory.
 * The server's stderr is kept in a buffer and printed only when something goes wrong.
 * @returns {Promise<{url: string, dir: string, stop: () => Promise<void>}>}
 */
export async function startServer({ demo = true, args = [] } = {}) {
  if (!existsSync(BINARY)) {
    throw new Error(`${BINARY} is missing: run \`npx just build\` first`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'crm-e2e-'));
  const argv = ['serve', '--addr', '127.0.0.1:0', '--database-url', `sqlite:${join(dir, 'crm.db')}`, ...args];
  if (demo) argv.splice(1, 0, '--demo');
  const child = spawn(BINARY, argv, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });

  // Never leave a server behind when the test process ends without calling stop().
  const reap = () => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', reap);
  child.once('exit', () => process.removeListener('exit', reap));

  let stderr = '';
  let stdout = '';
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let stopping = false;
  const dump = (why) => {
    process.stderr.write(`\n--- crm server ${why}; its stdout:\n${stdout}\n--- its stderr:\n${stderr}\n---\n`);
  };

  let settled = false; // the start-up promise has resolved or rejected
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      settled = true;
      dump(`did not print its URL within ${START_TIMEOUT_MS / 1000} s`);
      child.kill('SIGKILL');
      reject(new Error(`crm serve did not report its URL within ${START_TIMEOUT_MS / 1000} s`));
    }, START_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d;
      const m = READY_LINE.exec(stdout);
      if (m && !settled) {
        settled = true;
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('error', (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      dump(`failed to start (${err.message})`);
      reject(err);
    });
    exited.then(({ code, signal }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!stopping) {
        dump(`exited (code ${code}, signal ${signal})`);
        reject(new Error(`crm serve exited before it was ready (code ${code}, signal ${signal})`));
      }
    });
  });

  let url;
  try {
    url = await ready;
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }

  // A crash after start-up is reported too, not only a failed start.
  exited.then(({ code, signal }) => {
    if (!stopping) dump(`exited unexpectedly (code ${code}, signal ${signal})`);
  });

  async function stop() {
    if (stopping) return;
    stopping = true;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      const { code, signal } = await exited;
      clearTimeout(timer);
      if (code !== 0 && signal !== 'SIGTERM') dump(`stopped with code ${code}, signal ${signal}`);
    }
    await rm(dir, { recursive: true, force: true });
  }

  return { url, dir, stop };
}

/** Launch the system Chromium, headless (with `port`, open to Lighthouse on that debugging port). */
export function launchBrowser({ port } = {}) {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (.ci/run does)`);
  }
  return chromium.launch({
    timeout: 60_000,
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
      ...(port ? [`--remote-debugging-port=${port}`] : []),
    ],
  });
}

/** A fresh context (own cookies and cache) and a page in it; English unless told otherwise. */
export async function newPage(browser, { locale = 'en-US', ...options } = {}) {
  const context = await browser.newContext({ locale, ...options });
  const page = await context.newPage();
  return { context, page };
}

/**
 * Sign in for a test about what comes after: the POST the sign-in form makes, sent by the
 * page's own request client (it shares the context's cookies), then the page opened where the
 * server sends a user who has just signed in (/home, the page their role may see, or the
 * two-factor step). No load of /login and no typing: half a second or more a test on a slow
 * machine. Tests of the form itself use login.
 * @returns {Promise<import('playwright-core').Response | null>} the response of the landing page
 */
export async function signIn(page, url, email, password) {
  const r = await page.request.post(new URL('/login', url).href, { form: { email, password }, maxRedirects: 0 });
  const to = r.headers().location;
  if (r.status() !== 303 || !to) {
    throw new Error(`signing in as ${email}: ${r.status()} instead of a redirect`);
  }
  return page.goto(new URL(to, url).href);
}

/**
 * Open /login, fill the form and submit it; resolves once the resulting page has loaded
 * (the next page after success, or the login page again with its error).
 * @returns {Promise<import('playwright-core').Response | null>} the response of the form post's navigation
 */
export async function login(page, url, email, password) {
  await page.goto(new URL('/login', url).href);
  await page.fill('#email', email);
  await page.fill('#password', password);
  const [response] = await Promise.all([
    page.waitForNavigation({ waitUntil: 'load' }),
    page.click('[data-testid=login-submit]'),
  ]);
  return response;
}

/**
 * Load `url` in `page` with a cold cache and add up the bytes that crossed the network,
 * as Chromium counts them (CDP Network.loadingFinished encodedDataLength: compressed body plus
 * response headers). Cookies are kept, so a signed-in page stays signed in.
 * `byType` is keyed by CDP resource type (Document, Stylesheet, Script, Fetch, Image …);
 * each request also reports `headerBytes`, the part of `bytes` that was response headers.
 * @returns {Promise<{totalBytes: number, byType: Record<string, number>,
 *   requests: {url: string, type: string, status: number, bytes: number, headerBytes: number}[]}>}
 */
export async function measureLoad(context, page, url) {
  const cdp = await context.newCDPSession(page);
  const seen = new Map(); // requestId -> {url, type, status, bytes, done}
  const pending = new Set();
  let settle = () => {};
  const check = () => { if (pending.size === 0) settle(); };
  const entry = (id) => {
    if (!seen.has(id)) seen.set(id, { url: '', type: 'Other', status: 0, bytes: 0, headerBytes: 0 });
    return seen.get(id);
  };

  cdp.on('Network.requestWillBeSent', (e) => {
    // A redirect reuses the requestId: count the redirect response as its own entry.
    if (e.redirectResponse && seen.has(e.requestId)) {
      const prev = seen.get(e.requestId);
      seen.set(`${e.requestId}:redirect:${prev.url}`, {
        ...prev, status: e.redirectResponse.status, bytes: e.redirectResponse.encodedDataLength ?? 0,
        headerBytes: e.redirectResponse.encodedDataLength ?? 0,
      });
      seen.delete(e.requestId);
    }
    const r = entry(e.requestId);
    r.url = e.request.url;
    r.type = e.type || r.type;
    pending.add(e.requestId);
  });
  cdp.on('Network.responseReceived', (e) => {
    const r = entry(e.requestId);
    r.status = e.response.status;
    r.headerBytes = e.response.encodedDataLength ?? 0; // bytes in when the headers were complete
    r.type = e.type || r.type;
  });
  cdp.on('Network.loadingFinished', (e) => {
    entry(e.requestId).bytes = e.encodedDataLength;
    pending.delete(e.requestId);
    check();
  });
  cdp.on('Network.loadingFailed', (e) => {
    entry(e.requestId).failed = e.errorText;
    pending.delete(e.requestId);
    check();
  });

  await cdp.send('Network.enable');
  await cdp.send('Network.clearBrowserCache');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  try {
    await page.goto(url, { waitUntil: 'load' });
    // loadingFinished events may trail the load event on the CDP channel: wait for them.
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const open = [...pending].map((id) => seen.get(id)?.url || id);
        reject(new Error(`requests still loading 10 s after the load event: ${open.join(', ')}`));
      }, 10_000);
      settle = () => { clearTimeout(timer); resolve(); };
      check();
    });
  } finally {
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: false }).catch(() => {});
    await cdp.detach().catch(() => {});
  }

  const requests = [...seen.values()].map(({ url: u, type, status, bytes, headerBytes }) => (
    { url: u, type, status, bytes, headerBytes: Math.min(headerBytes, bytes) }));
  const byType = {};
  let totalBytes = 0;
  for (const r of requests) {
    byType[r.type] = (byType[r.type] || 0) + r.bytes;
    totalBytes += r.bytes;
  }
  return { totalBytes, byType, requests };
}
