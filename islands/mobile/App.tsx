// The mobile lead manager: loads the messages and the configuration, keeps what the
// screens share (profile, masters, queue, the lead being added) and shows the screen of
// the current path.
import { useCallback, useEffect, useRef, useState } from 'react';
import { toast } from '../lib/toast';
import { AddLeadStep1 } from './AddLeadStep1';
import { AddLeadStep2, type AddressState } from './AddLeadStep2';
import * as api from './api';
import { config, loadConfig } from './config';
import { readFirstPage } from './first';
import { loadMessages, setMessages, t } from './i18n';
import { buildPayload, leadFromPayload } from './leads';
import { LeadList, type EarlyInput } from './LeadList';
import { afterSend, enqueue, forOwner, onQueueChange, onSynced, readQueue, sendNow, startAutoSync, type QueuedLead } from './queue';
import { navigate, ROUTES, usePath } from './router';
import * as storage from './storage';
import type { LeadPage } from './api';
import { emptyAddress, emptyLeadForm, emptyMasters, type Address, type LeadForm, type Masters, type Profile } from './types';
import { uuid } from './util';
import { isValid, validateStep1 } from './validation';

export interface AppProps {
  lang: string;
  locale: string;
  localesUrl: string;
  configUrl: string;
  swUrl: string;
  scope: string;
  /** The id of the data block of the list the server rendered (the list screen only). */
  firstPage?: string;
  /** What the user did on the server-drawn list before the island mounted (main.tsx). */
  early?: EarlyInput;
}

function useOnline(): boolean {
  const [online, setOnline] = useState(navigator.onLine);
  useEffect(() => {
    const on = () => setOnline(true);
    const off = () => setOnline(false);
    window.addEventListener('online', on);
    window.addEventListener('offline', off);
    return () => {
      window.removeEventListener('online', on);
      window.removeEventListener('offline', off);
    };
  }, []);
  return online;
}

const emptyAddresses = (): AddressState => ({ billing: emptyAddress(), shipping: emptyAddress(), same: false });

/**
 * App waits for its messages, then renders the screens. When the server rendered the list
 * (the data block carries the messages and the first page) it renders at once, the same
 * screen the server drew.
 */
export function App(props: AppProps) {
  const [first] = useState(() => readFirstPage(props.firstPage));
  const [ready, setReady] = useState(() => {
    if (first) setMessages(first.messages);
    return first !== null;
  });
  useEffect(() => {
    const english = props.localesUrl.replace(/\/[a-z]{2}\.json/, '/en.json');
    const messages = first ? Promise.resolve() : loadMessages(props.localesUrl, english);
    void messages.then(() => {
      setReady(true);
      loadConfig(props.configUrl).catch((err) => {
        console.error('config', err);
        toast(t('toast.configError'), 'error', { timeout: config().toastTimeoutMs, preventDuplicates: true });
      });
    });
    if ('serviceWorker' in navigator) {
      navigator.serviceWorker.register(props.swUrl, { scope: props.scope }).catch((err) => console.warn('service worker', err));
      // Make sure the worker keeps this page's message file and whatever else it may lack.
      void navigator.serviceWorker.ready.then((reg) => reg.active?.postMessage({ type: 'keep', urls: [props.localesUrl] }));
    }
  }, [first, props.localesUrl, props.configUrl, props.swUrl, props.scope]);
  if (!ready) return <p className="m-boot" role="status">…</p>;
  return <Screens firstPage={first?.list ?? null} early={props.early} />;
}

function Screens({ firstPage, early }: { firstPage: LeadPage | null; early?: EarlyInput }) {
  const path = usePath();
  // The server's first page is the list's first render only: once the user has left the
  // list, it loads as usual when they come back.
  const initialList = useRef(firstPage);
  useEffect(() => {
    if (path !== ROUTES.list) initialList.current = null;
  }, [path]);
  const online = useOnline();
  const [profile, setProfile] = useState<Profile | null>(null);
  const profileRef = useRef<Profile | null>(null);
  const [masters, setMasters] = useState<Masters>(emptyMasters());
  const [queue, setQueue] = useState<QueuedLead[]>([]);
  const [form, setForm] = useState<LeadForm | null>(null);
  const [addresses, setAddresses] = useState<AddressState>(emptyAddresses);

  // A 401 while online means the session ended: sign in again, then come back here.
  useEffect(() => {
    api.setUnauthorizedHandler(() => {
      if (navigator.onLine) location.assign('/m/login?next=' + encodeURIComponent(location.pathname));
    });
  }, []);

  // The masters: the phone's copy, refreshed from the server once per visit when needed.
  const mastersAsked = useRef(false);
  const requestMasters = useCallback(() => {
    if (mastersAsked.current) return;
    mastersAsked.current = true;
    void (async () => {
      const cached = await storage.readMasters();
      if (cached) setMasters(cached);
      if (!navigator.onLine) {
        mastersAsked.current = false;
        return;
      }
      try {
        const [stages, statuses, sources, types] = await Promise.all(
          (['lead-stage', 'lead-status', 'lead-source', 'lead-type'] as const).map((n) => api.dropdown(n)),
        );
        const m: Masters = { stages, statuses, sources, types };
        setMasters(m);
        await storage.writeMasters(m);
      } catch (err) {
        console.warn('masters', err);
        mastersAsked.current = false;
      }
    })();
  }, []);

  // The profile: the phone's copy at once, the server's when it answers. Then the queue
  // starts draining, sending only this user's leads.
  useEffect(() => {
    let stop = false;
    void (async () => {
      const cached = await storage.readProfile();
      if (!stop && cached) {
        profileRef.current = cached;
        setProfile(cached);
      }
      if (navigator.onLine) {
        try {
          const m = await api.me();
          const p: Profile = { user_id: m.user.id, tenant_id: m.tenant.id, name: m.user.name, phone: m.user.phone, email: m.user.email };
          if (cached && (cached.user_id !== p.user_id || cached.tenant_id !== p.tenant_id)) {
            // Another user signed in on this phone: nothing of the last one's may show.
            await storage.forgetUser();
            if (!stop) {
              setMasters(emptyMasters());
              setForm(emptyLeadForm());
              mastersAsked.current = false;
              requestMasters();
            }
          }
          profileRef.current = p;
          if (!stop) setProfile(p);
          await storage.writeProfile(p);
        } catch (err) {
          console.warn('profile', err);
        }
      }
      startAutoSync(() => profileRef.current);
    })();
    return () => {
      stop = true;
    };
  }, []);

  // The queue as the list shows it, kept current.
  useEffect(() => {
    const refresh = () => void readQueue().then((q) => setQueue(q));
    refresh();
    return onQueueChange(refresh);
  }, []);

  // Leads that waited on the phone and reached the server in the background: a toast says
  // so (a lead sent right after Submit has the spec's alert instead).
  const justSent = useRef<string | null>(null);
  useEffect(() => onSynced((leads) => {
    const n = leads.filter((l) => l.client_id !== justSent.current).length;
    if (n > 0) toast(t('toast.synced', { count: n }), 'success', { timeout: config().toastTimeoutMs });
  }), []);

  // The step-1 draft, restored once.
  useEffect(() => {
    void storage.readDraft().then((d) => setForm({ ...emptyLeadForm(), ...(d ?? {}) }));
  }, []);

  // The lead types and sources must be on the phone before the network goes: fetch them at
  // the first start, later only when a screen needs them.
  useEffect(() => {
    void storage.readMasters().then((m) => (m ? setMasters(m) : requestMasters()));
  }, [requestMasters]);

  const updateForm = useCallback((f: LeadForm) => {
    setForm(f);
    storage.writeDraft(f).catch((err) => console.error('draft', err));
  }, []);

  // Screens: unknown paths go to the list; step 2 without a valid step 1 goes to step 1.
  const known = path === ROUTES.list || path === ROUTES.addLead || path === ROUTES.addLeadAddress;
  const step1Invalid = form !== null && !isValid(validateStep1(form));
  useEffect(() => {
    if (!known) navigate(ROUTES.list, true);
    else if (path === ROUTES.addLeadAddress && step1Invalid) navigate(ROUTES.addLead, true);
  }, [known, path, step1Invalid]);
  useEffect(() => {
    if (path !== ROUTES.list) requestMasters();
  }, [path, requestMasters]);

  // Move focus to the new screen's title after a navigation (not on first load).
  const firstPath = useRef(path);
  useEffect(() => {
    if (path === firstPath.current) return;
    firstPath.current = '';
    document.querySelector<HTMLElement>('[data-screen-title]')?.focus();
  }, [path]);

  const submit = useCallback(async (billing: Address, shipping: Address) => {
    if (!form) return;
    const clientId = uuid();
    const payload = buildPayload(form, billing, shipping, clientId);
    const me = profileRef.current;
    await enqueue(payload, leadFromPayload(payload, masters, me), me);
    const offline = !navigator.onLine;
    justSent.current = clientId;
    const result = offline ? 'offline' : await sendNow(clientId, me);
    if (result === 'synced') window.alert(t('alert.synced'));
    else if (result === 'offline') window.alert(t('alert.savedOffline'));
    if (result !== 'offline') afterSend(result);
    // Leave step 2 before its data goes, so the screen never sees an empty step 1.
    navigate(ROUTES.list);
    setForm(emptyLeadForm());
    setAddresses(emptyAddresses());
    await storage.clearDraft();
  }, [form, masters]);

  if (path === ROUTES.addLead || path === ROUTES.addLeadAddress) {
    if (!form) return <p className="m-boot" role="status">…</p>;
    if (path === ROUTES.addLead) return <AddLeadStep1 form={form} masters={masters} onChange={updateForm} />;
    return <AddLeadStep2 value={addresses} onChange={setAddresses} onSubmit={submit} />;
  }
  return <LeadList online={online} queue={forOwner(queue, profile)} profile={profile} masters={masters} requestMasters={requestMasters}
    initial={initialList.current} early={initialList.current ? early : undefined} />;
}
