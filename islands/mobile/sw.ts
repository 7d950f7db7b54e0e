// The mobile lead manager's service worker (scope /m/). It keeps the three screens, the
// bundles, the message file and the configuration so the app opens with the network off
// after one online visit:
//   - screens, config.json, message files: network first, the kept copy when offline;
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
const NETWORK_TIMEOUT_MS = 5000;

/** keep stores a good, same-origin, not-redirected answer under key. */
async function keep(cache: Cache, key: string, res: Response): Promise<void> {
  if (res.ok && res.type === 'basic' && !res.redirected) await cache.put(key, res);
}

/** fetchInto fetches url once and keeps the answer under each key. */
async function fetchInto(cache: Cache, url: string, keys: string[]): Promise<void> {
  try {
    // Bundles, messages and config come from the HTTP cache when the page just loaded them.
    const res = await fetch(url, { credentials: 'same-origin', cache: SCREENS.includes(url) ? 'no-cache' : 'default' });
    for (const key of keys) await keep(cache, key, res.clone());
  } catch (err) {
    console.warn('precache', url, err);
  }
}

/** fill keeps every url not kept yet; the three screens share one shell, fetched once. */
async function fill(urls: string[]): Promise<void> {
  const cache = await caches.open(CACHE);
  const missing: string[] = [];
  for (const u of new Set(urls)) if (!(await cache.match(u))) missing.push(u);
  const screens = missing.filter((u) => SCREENS.includes(u));
  await Promise.all([
    ...(screens.length ? [fetchInto(cache, screens[0], screens)] : []),
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
async function networkFirst(req: Request, key: string, fallbacks: string[] = []): Promise<Response> {
  const cache = await caches.open(CACHE);
  try {
    const res = await withTimeout(fetch(req), NETWORK_TIMEOUT_MS);
    await keep(cache, key, res.clone());
    return res;
  } catch (err) {
    for (const k of [key, ...fallbacks]) {
      const hit = (await cache.match(k)) ?? (await cache.match(k, { ignoreSearch: true }));
      if (hit) return hit;
    }
    throw err;
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
    // Any /m/ screen, kept by path; an unknown one offline opens the list.
    const key = SCREENS.includes(path) ? path : SCREENS[0];
    event.respondWith(networkFirst(req, key, [SCREENS[0]]));
  } else if (path.startsWith('/locales/mobile/') || path === '/v1/api/config.json') {
    event.respondWith(networkFirst(req, url.pathname + url.search));
  }
});
