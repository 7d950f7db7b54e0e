// The mobile lead manager's service worker (scope /m/). It keeps the three screens, the
// bundles, the message file and the configuration so the app opens with the network off
// after one online visit:
//   - screens: network first, the kept copy when offline. The list's page carries the
//     user's first leads (rendered by the server), so the worker never keeps a navigation's
//     answer: it keeps the bare shell, fetched as /m/leads-mobile?offline=1, which holds no
//     lead, for all three screens. A phone signed out (or whose session ended) thus keeps no
//     lead data in its kept screens; the leads it keeps for offline use are the app's own
//     copies, which sign-out drops;
//   - config.json, message files: network first, the kept copy when offline;
//   - /static/build/*: content-hashed and immutable, so the kept copy first;
//   - the lead calls (/v1/api/lead/*) and every other request: never touched here (the app
//     keeps its own copies of leads on the phone).
// The server puts the list of files to keep in front of this script (self.CRM_PRECACHE),
// so a new build is a new worker.
/// <reference lib="webworker" />
export {};
declare const self: ServiceWorkerGlobalScope & { CRM_PRECACHE?: string[] };

const CACHE = 'crm-mobile-v1';
const PRECACHE = self.CRM_PRECACHE ?? [];
const SCREENS = ['/m/leads-mobile', '/m/add-lead', '/m/add-lead-address'];
/** The shell without leads: what the worker keeps for every screen. */
const OFFLINE_SHELL = '/m/leads-mobile?offline=1';
const NETWORK_TIMEOUT_MS = 5000;

/** keep stores a good, same-origin, not-redirected answer under key. */
async function keep(cache: Cache, key: string, res: Response): Promise<void> {
  if (res.ok && res.type === 'basic' && !res.redirected) await cache.put(key, res);
}

/** fetchInto fetches url once and keeps the answer under each key. */
async function fetchInto(cache: Cache, url: string, keys: string[]): Promise<void> {
  try {
    // Bundles, messages and config come from the HTTP cache when the page just loaded them;
    // the shell is revalidated (an unchanged one is a 304).
    const res = await fetch(url, { credentials: 'same-origin', cache: url === OFFLINE_SHELL ? 'no-cache' : 'default' });
    for (const key of keys) await keep(cache, key, res.clone());
  } catch (err) {
    console.warn('precache', url, err);
  }
}

/** keepShell keeps the bare shell (no leads) as each of the screens. */
const keepShell = async (cache: Cache) => fetchInto(cache, OFFLINE_SHELL, SCREENS);

/** fill keeps every url not kept yet; the three screens share the bare shell, fetched once. */
async function fill(urls: string[]): Promise<void> {
  const cache = await caches.open(CACHE);
  const missing: string[] = [];
  for (const u of new Set(urls)) if (!(await cache.match(u))) missing.push(u);
  await Promise.all([
    ...(missing.some((u) => SCREENS.includes(u)) ? [keepShell(cache)] : []),
    ...missing.filter((u) => !SCREENS.includes(u)).map((u) => fetchInto(cache, u, [u])),
  ]);
}

self.addEventListener('install', (event) => {
  event.waitUntil(fill(PRECACHE).then(() => self.skipWaiting()));
});

// The page names what it loaded (its message file may be in another language than the
// one this worker was installed with) and asks for anything still missing to be kept.
self.addEventListener('message', (event) => {
  const data = event.data as { type?: string; urls?: unknown } | null;
  if (data?.type !== 'keep') return;
  const asked = Array.isArray(data.urls) ? data.urls.filter((u): u is string => typeof u === 'string' && u.startsWith('/locales/mobile/')) : [];
  event.waitUntil(fill([...PRECACHE, ...asked]));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name !== CACHE) await caches.delete(name);
      // Bundles of earlier builds are no longer referenced: drop them.
      const cache = await caches.open(CACHE);
      const current = new Set(PRECACHE.map((u) => new URL(u, self.location.origin).href));
      for (const req of await cache.keys()) {
        if (new URL(req.url).pathname.startsWith('/static/build/') && !current.has(req.url)) await cache.delete(req);
      }
      await self.clients.claim();
    })(),
  );
});

function withTimeout(p: Promise<Response>, ms: number): Promise<Response> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timeout')), ms);
    p.then((r) => { clearTimeout(timer); resolve(r); }, (e) => { clearTimeout(timer); reject(e); });
  });
}

/** networkFirst asks the network, keeps a good answer, and falls back to the kept copy. */
async function networkFirst(req: Request, key: string): Promise<Response> {
  const cache = await caches.open(CACHE);
  try {
    const res = await withTimeout(fetch(req), NETWORK_TIMEOUT_MS);
    await keep(cache, key, res.clone());
    return res;
  } catch (err) {
    return fromCache(cache, [key], err);
  }
}

/** fromCache is the first kept answer of keys (with or without their query), else the error. */
async function fromCache(cache: Cache, keys: string[], err: unknown): Promise<Response> {
  for (const k of keys) {
    const hit = (await cache.match(k)) ?? (await cache.match(k, { ignoreSearch: true }));
    if (hit) return hit;
  }
  throw err;
}

/**
 * screen answers a navigation to a screen from the network, or offline with the kept shell.
 * The answer itself is not kept (the list's carries leads): once it has come, the bare shell
 * is fetched again in the background so the kept copy follows new builds and the language.
 */
async function screen(event: FetchEvent, key: string): Promise<Response> {
  const cache = await caches.open(CACHE);
  try {
    const res = await withTimeout(fetch(event.request), NETWORK_TIMEOUT_MS);
    if (res.ok && !res.redirected) event.waitUntil(keepShell(cache));
    return res;
  } catch (err) {
    return fromCache(cache, [key, SCREENS[0]], err);
  }
}

async function cacheFirst(req: Request): Promise<Response> {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(req);
  if (hit) return hit;
  const res = await fetch(req);
  await keep(cache, req.url, res.clone());
  return res;
}

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  const path = url.pathname;

  if (path.startsWith('/static/build/')) {
    event.respondWith(cacheFirst(req));
  } else if (req.mode === 'navigate' && path.startsWith('/m/') && path !== '/m/login') {
    // Any /m/ screen; an unknown one offline opens the list.
    event.respondWith(screen(event, SCREENS.includes(path) ? path : SCREENS[0]));
  } else if (path.startsWith('/locales/mobile/') || path === '/v1/api/config.json') {
    event.respondWith(networkFirst(req, url.pathname + url.search));
  }
});
