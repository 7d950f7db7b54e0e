// The JSON calls of the mobile lead manager. Every answer is the envelope
// {status, message, data}; a failure throws ApiError (status 0 when the network failed).
import type { Lead, LeadPayload, ListQuery, Option, Summary } from './types';

export const API = '/v1/api';
const TIMEOUT_MS = 20000;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** network reports a failure before any answer arrived (offline, cut, timeout). */
  get network(): boolean {
    return this.status === 0;
  }
}

interface Envelope<T> {
  status: number;
  message: string;
  data: T;
  errors?: Record<string, string>;
}

let onUnauthorized: () => void = () => {};

/** setUnauthorizedHandler decides what a 401 does (the app sends the user to sign in). */
export function setUnauthorizedHandler(fn: () => void): void {
  onUnauthorized = fn;
}

async function call<T>(path: string, init: RequestInit = {}): Promise<T> {
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), TIMEOUT_MS);
  let res: Response;
  try {
    res = await fetch(API + path, {
      ...init,
      credentials: 'same-origin',
      signal: ctrl.signal,
      headers: { Accept: 'application/json', ...(init.headers as Record<string, string>) },
    });
  } catch (err) {
    throw new ApiError(0, String(err));
  } finally {
    clearTimeout(timer);
  }
  let body: Envelope<T> | null = null;
  try {
    body = await res.json();
  } catch {
    // an answer cut short or not JSON: treated like a network failure when not ok
    if (res.ok) throw new ApiError(0, 'unreadable answer');
  }
  if (!res.ok) {
    if (res.status === 401) onUnauthorized();
    throw new ApiError(res.status, body?.message || res.statusText, body?.errors || {});
  }
  return (body as Envelope<T>).data;
}

export interface MeData {
  user: { id: number; email: string; name: string; phone: string };
  tenant: { id: number; name: string };
  locale: string;
}

export interface LeadPage {
  result: Lead[];
  total: number;
  page: number;
  limit: number;
  summary: Summary;
}

export const me = () => call<MeData>('/auth/me');
/** logout ends the session this phone signed in with. */
export const logout = () => call<null>('/auth/logout', { method: 'POST' });

export function listLeads(q: ListQuery, page: number, limit: number): Promise<LeadPage> {
  const p = new URLSearchParams({ page: String(page), limit: String(limit) });
  if (q.search.trim()) p.set('search', q.search.trim());
  if (q.sort !== 'recent') p.set('sort', q.sort);
  if (q.stage) p.set('stage_id', String(q.stage));
  if (q.status) p.set('status_id', String(q.status));
  return call<LeadPage>('/lead/list-customer-lead?' + p.toString());
}

/** createLead sends a lead; a repeat with the same key or client_id returns the first result. */
export function createLead(payload: LeadPayload, idempotencyKey: string): Promise<Lead> {
  return call<Lead>('/lead/create-customer-lead', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
    body: JSON.stringify(payload),
  });
}

export type MasterName = 'lead-stage' | 'lead-status' | 'lead-source' | 'lead-type';

export const dropdown = (name: MasterName) => call<Option[]>(`/dropdown-${name}-master`);
