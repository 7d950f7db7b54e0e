// Failed htmx requests (spec §8): htmx swaps nothing on an error answer, so without this a
// failed side-nav click, sort, filter or period change would leave the page as it was,
// silently. Here an error answer shows its message as an error toast; a 401 goes to
// sign-in, keeping the page to come back to; a request that never reached the server says so.
import htmx from 'htmx.org';
import { formatError, toast } from './toast';

// The server names an error answer's message in this header (app/web render.go),
// percent-encoded.
const MESSAGE_HEADER = 'X-Error-Message';

export interface ErrorToastOptions {
  timeout: number;
  // The translated "could not be reached" message (the toasts box's data-unreachable).
  unreachable: () => string;
}

// messageOf reads an error answer's message: the server's header, else a JSON body's
// message; formatted by the spec's rule (the default when there is none).
export function messageOf(xhr: XMLHttpRequest): string {
  let message: unknown;
  const header = xhr.getResponseHeader(MESSAGE_HEADER);
  if (header) {
    try {
      message = decodeURIComponent(header);
    } catch {
      message = header;
    }
  } else if ((xhr.getResponseHeader('Content-Type') || '').includes('application/json')) {
    try {
      message = JSON.parse(xhr.responseText)?.message;
    } catch {
      message = undefined;
    }
  }
  return formatError({ message });
}

// loginURL is the sign-in page, coming back to where the user is.
export function loginURL(): string {
  const here = location.pathname + location.search;
  return here === '/' ? '/login' : '/login?next=' + encodeURIComponent(here);
}

export function install(opts: ErrorToastOptions): void {
  // 422 answers carry the form again with its field errors (the dashboard's period): swap
  // them, as a browser without JavaScript shows them, and still say so in a toast.
  htmx.config.responseHandling = [
    { code: '204', swap: false },
    { code: '[23]..', swap: true },
    { code: '422', swap: true, error: true },
    { code: '[45]..', swap: false, error: true },
  ];
  document.addEventListener('htmx:responseError', (e) => {
    const xhr = (e as CustomEvent).detail?.xhr as XMLHttpRequest | undefined;
    if (!xhr) return;
    if (xhr.status === 401) {
      // The server's HX-Redirect is followed by htmx itself; this covers an answer without it.
      if (!xhr.getResponseHeader('HX-Redirect')) location.assign(loginURL());
      return;
    }
    if (xhr.status === 0) return;
    const message = messageOf(xhr);
    if (!xhr.getResponseHeader(MESSAGE_HEADER)) console.error('request failed', xhr.status, xhr.responseURL);
    toast(message, 'error', { timeout: opts.timeout });
  });
  document.addEventListener('htmx:sendError', () => {
    toast(opts.unreachable(), 'error', { timeout: opts.timeout, preventDuplicates: true });
  });
}
