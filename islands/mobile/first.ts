// The list's first page as the server rendered it into the shell of /m/leads-mobile: a
// <script type="application/json"> data block (the CSP forbids inline scripts that run,
// not data) with the messages of the app's language and the first page exactly as the list
// call answers it. With it the island's first render is the screen the server drew, so the
// leads are on screen before the bundle arrives and nothing moves when it does.
import type { LeadPage } from './api';

export interface FirstPage {
  messages: Record<string, string>;
  list: LeadPage;
}

/** readFirstPage reads the data block named id; null when there is none (the bare shell). */
export function readFirstPage(id: string | undefined): FirstPage | null {
  if (!id) return null;
  const el = document.getElementById(id);
  if (!el?.textContent) return null;
  try {
    const data = JSON.parse(el.textContent) as FirstPage;
    return data && typeof data.messages === 'object' && Array.isArray(data.list?.result) ? data : null;
  } catch (err) {
    console.error('first page', err);
    return null;
  }
}
