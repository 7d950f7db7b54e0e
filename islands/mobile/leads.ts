// Leads as the list shows them, whether from the server, the cache or the offline queue,
// and the search, sort and filter the phone applies itself when it cannot ask the server.
import { normalisePhone } from './validation';
import type { Address, Lead, LeadForm, LeadPayload, ListQuery, Masters, Option, Profile } from './types';

/** The spec's fixed payload values (section 3). The server ignores tenant_id and maps ids it does not know to the tenant's defaults. */
const FIXED = { customer_title: 'Mr.', company_type_id: 35, lead_status_id: 1, lead_stage_id: 1, tenant_id: 1 } as const;

/** buildPayload turns the two steps into the create call's body. */
export function buildPayload(form: LeadForm, billing: Address, shipping: Address, clientId: string, now = new Date()): LeadPayload {
  const trim = (a: Address): Address => ({
    flatNo: a.flatNo.trim(), street: a.street.trim(), city: a.city.trim(),
    state: a.state.trim(), zip: a.zip.trim(), country: a.country.trim(),
  });
  const p: LeadPayload = {
    ...FIXED,
    customer_name: form.leadName.trim(),
    company_name: form.company.trim(),
    company_email: form.email.trim(),
    company_phone_number: normalisePhone(form.phone),
    lead_source_id: Number(form.leadSource) || 0,
    billing_address: trim(billing),
    shipping_address: trim(shipping),
    createdAt: now.toISOString(),
    client_id: clientId,
    lead_type_id: Number(form.leadType) || 0,
  };
  if (form.logo) p.company_logo = form.logo;
  return p;
}

const label = (opts: Option[], id: number) => opts.find((o) => o.value === id)?.label ?? '';

/** leadFromPayload is how a lead waiting in the queue shows in the list. */
export function leadFromPayload(p: LeadPayload, masters: Masters, profile: Profile | null): Lead {
  return {
    id: 0,
    client_id: p.client_id,
    customer_title: p.customer_title,
    customer_name: p.customer_name,
    company_name: p.company_name,
    company_email: p.company_email,
    company_dial_code: '',
    company_phone_number: p.company_phone_number,
    lead_stage_id: p.lead_stage_id,
    lead_stage_name: label(masters.stages, p.lead_stage_id),
    lead_status_id: p.lead_status_id,
    lead_status_name: label(masters.statuses, p.lead_status_id),
    lead_source_id: p.lead_source_id,
    lead_source_name: label(masters.sources, p.lead_source_id),
    lead_type_id: p.lead_type_id,
    lead_type_name: label(masters.types, p.lead_type_id),
    created_user_name: profile?.name ?? '',
    createdAt: p.createdAt,
    billing_address: p.billing_address,
    shipping_address: p.shipping_address,
    logo_url: p.company_logo ?? '',
  };
}

export const createdTime = (l: Lead) => Date.parse(l.createdAt || l.created_at || '') || 0;

/** matches is the spec's search: case-insensitive over id, company, customer, email, phone, stage and status. */
export function matches(l: Lead, search: string): boolean {
  const q = search.trim().toLowerCase();
  if (!q) return true;
  const fields = [
    l.id ? String(l.id) : '', l.company_name, l.customer_name, l.company_email,
    l.company_phone_number, (l.company_dial_code || '') + l.company_phone_number,
    l.lead_stage_name, l.lead_status_name,
  ];
  return fields.some((f) => (f || '').toLowerCase().includes(q));
}

/** newest orders server leads by id and queued ones (no id yet) by creation time, newest first. */
const newest = (a: Lead, b: Lead) => b.id - a.id || createdTime(b) - createdTime(a);

const byText = (a: string, b: string) => (a || '').localeCompare(b || '', undefined, { sensitivity: 'base' });

/**
 * applyQuery filters, searches and sorts leads held on the phone the way the server does:
 * recent first, by customer name, or by the stage's place in the stage list (stageOrder).
 */
export function applyQuery(leads: Lead[], q: ListQuery, stageOrder: Option[] = []): Lead[] {
  const out = leads.filter(
    (l) => matches(l, q.search) && (!q.stage || l.lead_stage_id === q.stage) && (!q.status || l.lead_status_id === q.status),
  );
  switch (q.sort) {
    case 'name':
      return out.sort((a, b) => byText(a.customer_name, b.customer_name) || newest(a, b));
    case 'stage': {
      const rank = (l: Lead) => {
        const i = stageOrder.findIndex((o) => o.value === l.lead_stage_id);
        return i < 0 ? stageOrder.length : i;
      };
      return out.sort((a, b) => rank(a) - rank(b) || byText(a.lead_stage_name, b.lead_stage_name) || newest(a, b));
    }
    default:
      return out.sort(newest);
  }
}

export const isDefaultQuery = (q: ListQuery) => !q.search.trim() && q.sort === 'recent' && !q.stage && !q.status;
