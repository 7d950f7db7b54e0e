// Toasts in the top-right corner: inactive → active → removed after the timeout.
export interface ToastOptions {
  timeout?: number;
  preventDuplicates?: boolean;
}

const EASE_MS = 300;

export function toast(message: string, level: 'success' | 'error' | 'info' | 'warning' = 'success', opts: ToastOptions = {}): void {
  const box = document.getElementById('toasts');
  if (!box || !message) return;
  if (opts.preventDuplicates) {
    for (const el of Array.from(box.querySelectorAll<HTMLElement>('[data-toast]'))) {
      if (el.textContent === message) return;
    }
  }
  const el = document.createElement('div');
  el.className = `toast toast-${level}`;
  el.setAttribute('data-toast', '');
  if (level === 'error') el.setAttribute('role', 'alert');
  el.textContent = message;
  box.appendChild(el);
  arm(el, opts.timeout ?? 5000);
}

// arm makes an existing toast element active and removes it after the timeout.
export function arm(el: HTMLElement, timeout: number): void {
  requestAnimationFrame(() => el.classList.add('toast-active'));
  const remove = () => {
    el.classList.remove('toast-active');
    setTimeout(() => el.remove(), EASE_MS);
  };
  let timer = setTimeout(remove, timeout);
  el.addEventListener('mouseenter', () => clearTimeout(timer));
  el.addEventListener('mouseleave', () => { timer = setTimeout(remove, 1000); });
  el.addEventListener('click', remove);
}

// formatError is the spec's rule for an error body's message: trimmed, underscores to
// spaces, title case; the default when there is none.
export function formatError(body: unknown): string {
  const msg = (body as { message?: unknown } | null)?.message;
  if (typeof msg !== 'string' || msg.trim() === '') return 'Internal Server Error';
  return msg
    .trim()
    .replace(/_/g, ' ')
    .replace(/\S+/g, (w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase());
}
