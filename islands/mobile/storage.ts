// The phone's storage (localforage, IndexedDB first): the offline leads queue, the cache of
// the online list, the step-1 draft (spec section 9), and the profile and master lists the
// screens need when the network is gone.
import localforage from 'localforage';
import type { Lead, LeadForm, Masters, Profile, Summary } from './types';

export const store = localforage.createInstance({ name: 'crm-mobile', storeName: 'leads' });

export const KEYS = {
  offlineLeads: 'offlineLeads',
  onlineLeads: 'onlineLeads',
  leadGeneralData: 'leadGeneralData',
  profile: 'profile',
  masters: 'masters',
} as const;

/** The cached online list: the leads of the unfiltered list loaded so far. */
export interface OnlineCache {
  result: Lead[];
  total: number;
  summary: Summary;
  savedAt: string;
}

async function get<T>(key: string): Promise<T | null> {
  try {
    return await store.getItem<T>(key);
  } catch (err) {
    console.error('storage read', key, err);
    return null;
  }
}

export const readOnlineCache = () => get<OnlineCache>(KEYS.onlineLeads);
export const writeOnlineCache = (c: OnlineCache) => store.setItem(KEYS.onlineLeads, c);

export const readDraft = () => get<LeadForm>(KEYS.leadGeneralData);
export const writeDraft = (f: LeadForm) => store.setItem(KEYS.leadGeneralData, f);
export const clearDraft = () => store.removeItem(KEYS.leadGeneralData);

export const readProfile = () => get<Profile>(KEYS.profile);
export const writeProfile = (p: Profile) => store.setItem(KEYS.profile, p);
export const forgetProfile = () => store.removeItem(KEYS.profile);

export const readMasters = () => get<Masters>(KEYS.masters);
export const writeMasters = (m: Masters) => store.setItem(KEYS.masters, m);

/** forgetUser drops what belongs to the previous user of the phone: their cached list, masters and draft. */
export async function forgetUser(): Promise<void> {
  await Promise.all([KEYS.onlineLeads, KEYS.masters, KEYS.leadGeneralData].map((k) => store.removeItem(k)));
}
