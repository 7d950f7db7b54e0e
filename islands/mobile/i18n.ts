// Translations of the mobile lead manager: one flat JSON file per language
// (locales/mobile/<lang>.json), loaded once at start.
let messages: Record<string, string> = {};

/** loadMessages fetches the language's file; on failure it tries English, then keeps the keys. */
export async function loadMessages(url: string, fallbackURL?: string): Promise<void> {
  for (const u of [url, fallbackURL]) {
    if (!u) continue;
    try {
      const res = await fetch(u, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
      if (res.ok) {
        messages = await res.json();
        return;
      }
    } catch {
      // offline and not cached: try the next file
    }
  }
}

/** setMessages takes the messages the server put in the page (they are the language's file). */
export function setMessages(m: Record<string, string>): void {
  messages = m;
}

/** t translates a key; {name} placeholders take vars' values. A missing key shows itself. */
export function t(key: string, vars?: Record<string, string | number>): string {
  const msg = messages[key] ?? key;
  if (!vars) return msg;
  return msg.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}
