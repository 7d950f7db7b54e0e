// The mobile shell's one script tag: it starts the app's bundle (preloaded by the page's
// head) once the page's first paint is on screen. The list's shell arrives with its leads
// drawn by the server; evaluating the bundle first would hold that paint back by the time
// a phone takes to run it (on a repeat visit the bundle is at hand before the first paint).
const me = document.currentScript as HTMLScriptElement | null;

// Until the island mounts, the server-drawn list's sort, filter and menu buttons (each with
// data-tap, views/mobile/mobile.templ) have no handler of their own: note the last one
// tapped on #app (data-tapped), for the island to open what it opens (main.tsx).
const app = document.getElementById('app');
app?.addEventListener('click', (e) => {
  const tapped = (e.target as Element | null)?.closest<HTMLElement>('[data-tap]')?.dataset.tap;
  if (tapped && app && !app.dataset.mounted) app.dataset.tapped = tapped;
});
const src = me?.dataset.bundle;
let started = false;

function start(): void {
  if (started || !src) return;
  started = true;
  const s = document.createElement('script');
  s.src = src;
  document.body.appendChild(s);
}

// The first contentful paint is reported once it is on screen. Without paint timing, after
// the next frame; a hidden tab paints nothing, so a timer as well.
if (typeof PerformanceObserver === 'function' && PerformanceObserver.supportedEntryTypes?.includes('paint')) {
  new PerformanceObserver((list, obs) => {
    if (list.getEntries().some((e) => e.name === 'first-contentful-paint')) {
      obs.disconnect();
      setTimeout(start, 0);
    }
  }).observe({ type: 'paint', buffered: true });
} else {
  requestAnimationFrame(() => setTimeout(start, 0));
}
setTimeout(start, 1000);
