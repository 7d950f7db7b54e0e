// The global loading overlay: shown while any request is in flight, unless the request
// carries the header `skip: true`.
let pending = 0;

function overlay(): HTMLElement | null {
  return document.getElementById('overlay');
}

export function begin(): void {
  pending++;
  const el = overlay();
  if (el) el.hidden = false;
}

export function end(): void {
  pending = Math.max(0, pending - 1);
  const el = overlay();
  if (el && pending === 0) el.hidden = true;
}

export function skipped(headers: unknown): boolean {
  if (!headers) return false;
  if (headers instanceof Headers) return headers.get('skip') === 'true';
  const h = headers as Record<string, unknown>;
  return String(h.skip ?? h.Skip ?? '') === 'true';
}

// request is fetch with the overlay; islands use it for every call.
export async function request(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  const quiet = skipped(init.headers);
  if (!quiet) begin();
  try {
    return await fetch(input, { credentials: 'same-origin', ...init });
  } finally {
    if (!quiet) end();
  }
}
