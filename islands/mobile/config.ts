// The static configuration file (spec section 3), read once at start. The values the
// screens use fall back to the spec's constants when the file cannot be loaded.
export interface AppConfig {
  pageSize: number;
  toastTimeoutMs: number;
  maxFileSizeKB: number;
  imageTypes: string[];
}

export const defaults: AppConfig = {
  pageSize: 20,
  toastTimeoutMs: 3000,
  maxFileSizeKB: 2048,
  imageTypes: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'],
};

interface ConfigFile {
  Advanced?: { pageSize?: number; toastTimeoutMs?: number };
  Asset?: { maxFileSizeKB?: number; imageTypes?: string[] };
}

let current: AppConfig = defaults;
let loading: Promise<AppConfig> | null = null;

/** loadConfig fetches the file once; it rejects on failure (the caller shows the toast). */
export function loadConfig(url: string): Promise<AppConfig> {
  loading ??= (async () => {
    const res = await fetch(url, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    if (!res.ok) throw new Error('config ' + res.status);
    const body = (await res.json()) as { data?: ConfigFile };
    const c = body.data;
    if (!c || typeof c !== 'object') throw new Error('config: no data');
    current = {
      pageSize: c.Advanced?.pageSize || defaults.pageSize,
      toastTimeoutMs: c.Advanced?.toastTimeoutMs || defaults.toastTimeoutMs,
      maxFileSizeKB: c.Asset?.maxFileSizeKB || defaults.maxFileSizeKB,
      imageTypes: c.Asset?.imageTypes?.length ? c.Asset.imageTypes : defaults.imageTypes,
    };
    return current;
  })();
  return loading;
}

/** config is the loaded configuration, or the defaults until (or unless) it loads. */
export const config = (): AppConfig => current;

/** configReady settles once the file loaded or failed; it never rejects. */
export const configReady = (): Promise<AppConfig> => (loading ?? Promise.resolve(current)).catch(() => current);
