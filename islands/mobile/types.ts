// Shapes shared by the mobile lead manager: the API's lead, the form models and the
// payload the create call takes.

/** One address of a lead: billing or shipping (spec section 3). */
export interface Address {
  flatNo: string;
  street: string;
  city: string;
  state: string;
  zip: string;
  country: string;
}

export const emptyAddress = (): Address => ({ flatNo: '', street: '', city: '', state: '', zip: '', country: '' });

/** A lead as the list call returns it. Names are "" when missing. */
export interface Lead {
  id: number;
  client_id?: string | null;
  customer_title?: string;
  customer_name: string;
  company_name: string;
  company_email: string;
  company_dial_code: string;
  company_phone_number: string;
  lead_stage_id?: number | null;
  lead_stage_name: string;
  lead_status_id?: number | null;
  lead_status_name: string;
  lead_source_id?: number | null;
  lead_source_name: string;
  lead_type_id?: number | null;
  lead_type_name?: string;
  created_user_name: string;
  created_at?: string;
  createdAt?: string;
  billing_address?: Address | null;
  shipping_address?: Address | null;
  logo_url?: string;
}

/** The step-1 form model (spec section 3), also the draft kept in local storage. */
export interface LeadForm {
  leadName: string;
  company: string;
  email: string;
  phone: string;
  leadType: string;
  leadSource: string;
  address: string;
  city: string;
  state: string;
  zipCode: string;
  country: string;
  industry: string;
  numberOfUsers: string;
  status: string;
  /** The chosen logo as a data URL, and its file name; "" when none. */
  logo: string;
  logoName: string;
}

export const emptyLeadForm = (): LeadForm => ({
  leadName: '', company: '', email: '', phone: '', leadType: '', leadSource: '',
  address: '', city: '', state: '', zipCode: '', country: '', industry: '', numberOfUsers: '', status: '',
  logo: '', logoName: '',
});

/** The body of POST /lead/create-customer-lead: the spec's payload plus client_id, lead_type_id and the logo. */
export interface LeadPayload {
  customer_title: string;
  customer_name: string;
  company_name: string;
  company_email: string;
  company_phone_number: string;
  company_type_id: number;
  lead_source_id: number;
  lead_status_id: number;
  lead_stage_id: number;
  tenant_id: number;
  billing_address: Address;
  shipping_address: Address;
  createdAt: string;
  client_id: string;
  lead_type_id: number;
  company_logo?: string;
}

/** One dropdown entry (spec: label, value). */
export interface Option {
  label: string;
  value: number;
}

/** The tenant's master lists the screens offer. */
export interface Masters {
  stages: Option[];
  statuses: Option[];
  sources: Option[];
  types: Option[];
}

export const emptyMasters = (): Masters => ({ stages: [], statuses: [], sources: [], types: [] });

/** The signed-in user's profile block. */
export interface Profile {
  user_id: number;
  tenant_id: number;
  name: string;
  phone: string;
  email: string;
}

export type SortKey = 'recent' | 'name' | 'stage';

/** What the list asks for. stage/status are ids, 0 for All. */
export interface ListQuery {
  search: string;
  sort: SortKey;
  stage: number;
  status: number;
}

export interface Summary {
  won: number;
  lost: number;
}
