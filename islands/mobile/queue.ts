// The offline leads queue. A lead is saved here before any network call, with a client
// UUID and an idempotency key, and leaves only once the server answered 200 or 201 for
// it; retries are safe because the server returns the first result for a repeated key.
// A lead the server refuses (422 and other final 4xx) stays, marked failed with the reason.
import { ApiError, createLead } from './api';
import { KEYS, store } from './storage';
import type { Lead, LeadPayload, Profile } from './types';
import { uuid } from './util';

export interface QueuedLead {
  client_id: string;
  idempotency_key: string;
  payload: LeadPayload;
  /** The lead as the list shows it until the server has it. */
  display: Lead;
  /** Who saved it: only that user's session sends it. */
  owner: { tenant_id: number; user_id: number } | null;
  queued_at: string;
  attempts: number;
  state: 'waiting' | 'failed';
  error?: string;
  errors?: Record<string, string>;
}

export type SendResult = 'synced' | 'waiting' | 'failed';

const changes = new EventTarget();
const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel('crm-offline-leads') : null;
channel?.addEventListener('message', () => changes.dispatchEvent(new Event('change')));

function changed(): void {
  changes.dispatchEvent(new Event('change'));
  channel?.postMessage('change');
}

/** onQueueChange calls fn after every change to the queue, in this tab or another. */
export function onQueueChange(fn: () => void): () => void {
  changes.addEventListener('change', fn);
  return () => changes.removeEventListener('change', fn);
}

/** onSynced calls fn with the leads the server has just accepted. */
export function onSynced(fn: (leads: Lead[]) => void): () => void {
  const h = (e: Event) => fn((e as CustomEvent<Lead[]>).detail);
  changes.addEventListener('synced', h);
  return () => changes.removeEventListener('synced', h);
}

// Every read-modify-write of the queue runs under one lock, shared by the tabs of the
// browser when it has Web Locks, else by this tab's promise chain of that name.
const chains = new Map<string, Promise<unknown>>();
function locked<T>(name: string, fn: () => Promise<T>): Promise<T> {
  if (navigator.locks) return navigator.locks.request(name, fn) as Promise<T>;
  const p = (chains.get(name) ?? Promise.resolve()).then(fn, fn);
  chains.set(name, p.catch(() => undefined));
  return p;
}

async function read(): Promise<QueuedLead[]> {
  return (await store.getItem<QueuedLead[]>(KEYS.offlineLeads)) ?? [];
}

function edit(fn: (q: QueuedLead[]) => QueuedLead[]): Promise<void> {
  return locked('crm-queue-write', async () => {
    await store.setItem(KEYS.offlineLeads, fn(await read()));
    changed();
  });
}

/** readQueue returns every queued lead, oldest first. */
export const readQueue = read;

/** enqueue saves a lead on the phone. It resolves once the lead is stored. */
export function enqueue(payload: LeadPayload, display: Lead, profile: Profile | null): Promise<QueuedLead> {
  const item: QueuedLead = {
    client_id: payload.client_id,
    idempotency_key: uuid(),
    payload,
    display,
    owner: profile ? { tenant_id: profile.tenant_id, user_id: profile.user_id } : null,
    queued_at: new Date().toISOString(),
    attempts: 0,
    state: 'waiting',
  };
  return edit((q) => [...q.filter((x) => x.client_id !== item.client_id), item]).then(() => item);
}

/** forOwner keeps the leads the signed-in user may send (all when the user is not known). */
export function forOwner(q: QueuedLead[], profile: Profile | null): QueuedLead[] {
  if (!profile) return q;
  return q.filter((x) => !x.owner || (x.owner.tenant_id === profile.tenant_id && x.owner.user_id === profile.user_id));
}

/** A final refusal: sending the same lead again cannot succeed. */
function final(err: ApiError): boolean {
  return err.status >= 400 && err.status < 500 && ![401, 403, 408, 409, 425, 429].includes(err.status);
}

async function sendOne(item: QueuedLead): Promise<SendResult> {
  try {
    const lead = await createLead(item.payload, item.idempotency_key);
    await edit((q) => q.filter((x) => x.client_id !== item.client_id));
    changes.dispatchEvent(new CustomEvent('synced', { detail: [lead] }));
    return 'synced';
  } catch (err) {
    const e = err instanceof ApiError ? err : new ApiError(0, String(err));
    console.warn('lead not synced', item.client_id, e.status, e.message);
    await edit((q) =>
      q.map((x) =>
        x.client_id !== item.client_id
          ? x
          : final(e)
            ? { ...x, attempts: x.attempts + 1, state: 'failed', error: e.message, errors: e.errors }
            : { ...x, attempts: x.attempts + 1 },
      ),
    );
    return final(e) ? 'failed' : 'waiting';
  }
}

export interface DrainResult {
  synced: number;
  /** A retryable failure stopped the drain: try again later. */
  retry: boolean;
}

/**
 * drain sends the waiting leads, oldest first, one at a time; only one drain runs at a
 * time across tabs. It stops at the first retryable failure (the network is probably gone).
 */
export function drain(profile: Profile | null, only?: string): Promise<DrainResult> {
  return locked('crm-queue-drain', async () => {
    const result: DrainResult = { synced: 0, retry: false };
    const waiting = forOwner(await read(), profile).filter((x) => x.state === 'waiting' && (!only || x.client_id === only));
    for (const item of waiting) {
      const r = await sendOne(item);
      if (r === 'synced') result.synced++;
      if (r === 'waiting') {
        result.retry = true;
        break;
      }
    }
    return result;
  });
}

/** sendNow sends one lead right after it was saved: synced, still waiting, or refused. */
export async function sendNow(clientId: string, profile: Profile | null): Promise<SendResult> {
  await drain(profile, clientId);
  const left = (await read()).find((x) => x.client_id === clientId);
  if (!left) return 'synced';
  return left.state === 'failed' ? 'failed' : 'waiting';
}

// The queue drains by itself: at start, when the browser comes back online, when the page
// is shown again, and on a timer that backs off exponentially while sending keeps failing.
const BASE_MS = 1000;
const MAX_MS = 60000;
let failures = 0;
let timer: ReturnType<typeof setTimeout> | undefined;
let currentProfile: () => Profile | null = () => null;

function schedule(): void {
  clearTimeout(timer);
  const delay = Math.min(MAX_MS, BASE_MS * 2 ** Math.min(failures, 10));
  timer = setTimeout(kick, delay * (0.8 + Math.random() * 0.4));
}

/** kick drains now unless the browser knows it is offline. */
export async function kick(): Promise<void> {
  clearTimeout(timer);
  if (!navigator.onLine) return;
  try {
    const r = await drain(currentProfile());
    // Leads that went through show the server is reachable: start the backoff again.
    if (r.synced > 0) failures = 0;
    if (r.retry) {
      failures++;
      schedule();
    } else {
      failures = 0;
    }
  } catch (err) {
    console.error('queue drain', err);
    failures++;
    schedule();
  }
}

/** startAutoSync starts the automatic drain; profile tells whose leads to send. */
export function startAutoSync(profile: () => Profile | null): void {
  currentProfile = profile;
  window.addEventListener('online', () => {
    failures = 0;
    void kick();
  });
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') void kick();
  });
  void kick();
}

/** afterSend follows the first send of a new lead: a success means the network is back, so
 * whatever else waits goes now; a failure leaves the lead to the backoff timer. */
export function afterSend(result: SendResult): void {
  if (result === 'synced') {
    failures = 0;
    void kick();
  } else if (result === 'waiting') {
    failures++;
    schedule();
  }
}
