// The add-lead rules (spec section 5). They mirror the server's, so a lead the form
// accepts is one the server accepts. Each rule gives the message key of its first failure.
import type { Address, LeadForm } from './types';

const emailRE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const phoneRE = /^[0-9]{10}$/;
const tagRE = /<\s*\/?\s*[a-zA-Z!][^>]*>/;

export type Errors<T> = Partial<Record<keyof T, string>>;

/** normalisePhone mirrors the server's validate.NormalisePhone: spaces, dashes, dots,
 * parentheses and a leading + are formatting, not part of the number. */
export const normalisePhone = (s: string) => s.trim().replace(/^\+/, '').replace(/[\s\u00a0.()\/-]/g, '');

const blank = (s: string) => s.trim() === '';
const hasHTML = (s: string) => tagRE.test(s);

export const step1Fields = ['leadName', 'company', 'email', 'phone', 'leadType', 'leadSource'] as const;
export type Step1Field = (typeof step1Fields)[number];

export function validateStep1(f: LeadForm): Errors<LeadForm> {
  const e: Errors<LeadForm> = {};
  if (blank(f.leadName)) e.leadName = 'error.leadName';
  else if (hasHTML(f.leadName)) e.leadName = 'error.html';
  if (hasHTML(f.company)) e.company = 'error.html';
  if (!emailRE.test(f.email.trim())) e.email = 'error.email';
  if (!phoneRE.test(normalisePhone(f.phone))) e.phone = 'error.phone';
  if (!f.leadType) e.leadType = 'error.leadType';
  return e;
}

export const addressFields = ['flatNo', 'street', 'city', 'state', 'zip', 'country'] as const;
export type AddressField = (typeof addressFields)[number];

const requiredAddress: Partial<Record<AddressField, string>> = {
  flatNo: 'error.flatNo',
  city: 'error.city',
  state: 'error.state',
  country: 'error.country',
};

export function validateAddress(a: Address): Errors<Address> {
  const e: Errors<Address> = {};
  for (const f of addressFields) {
    const msg = requiredAddress[f];
    if (msg && blank(a[f])) e[f] = msg;
    else if (hasHTML(a[f])) e[f] = 'error.html';
  }
  return e;
}

export const isValid = (e: object) => Object.keys(e).length === 0;
