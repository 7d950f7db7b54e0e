// A small history router for the three mobile screens: links change the path without a
// page load, and back/forward work. The server renders the same shell for each path, so
// a reload or a deep link opens the same screen.
import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

export const ROUTES = {
  list: '/m/leads-mobile',
  addLead: '/m/add-lead',
  addLeadAddress: '/m/add-lead-address',
} as const;

const NAV = 'crm:navigate';

function subscribe(fn: () => void): () => void {
  window.addEventListener('popstate', fn);
  window.addEventListener(NAV, fn);
  return () => {
    window.removeEventListener('popstate', fn);
    window.removeEventListener(NAV, fn);
  };
}

/** usePath is the current path, re-rendering on every navigation. */
export function usePath(): string {
  return useSyncExternalStore(subscribe, () => location.pathname);
}

/** navigate goes to a screen; replace keeps the history length (redirects). */
export function navigate(path: string, replace = false): void {
  if (path === location.pathname) return;
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  window.dispatchEvent(new Event(NAV));
  window.scrollTo(0, 0);
}

/** Link is an <a> that navigates in place on a plain click, and like any link otherwise. */
export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    props.onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(props.href);
  };
  return <a {...props} onClick={onClick} />;
}
