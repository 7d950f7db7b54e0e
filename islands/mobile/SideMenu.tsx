// The side panel opened from the list's menu button: the profile block, then the menu of
// spec section 1. Only Leads goes somewhere; Requirements and Clients open and close.
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import * as api from './api';
import { t } from './i18n';
import { forOwner, readQueue } from './queue';
import * as storage from './storage';
import { Link, ROUTES } from './router';
import type { Profile } from './types';

interface Props {
  open: boolean;
  profile: Profile | null;
  onClose: () => void;
}

const plain = ['menu.proposal', 'menu.quotation', 'menu.orders', 'menu.agreements', 'menu.items',
  'menu.expenses', 'menu.timesheet', 'menu.payment', 'menu.settings'];

function Group({ id, label, items }: { id: string; label: string; items: string[] }) {
  const [open, setOpen] = useState(false);
  return (
    <li>
      <button type="button" className="m-menu-item m-menu-toggle" aria-expanded={open} aria-controls={id}
        data-testid={id + '-toggle'} onClick={() => setOpen(!open)}>
        {t(label)}
        <span className="m-chevron" aria-hidden="true" />
      </button>
      <ul id={id} className="m-submenu" hidden={!open}>
        {items.map((k) => (
          <li key={k}><span className="m-menu-item">{t(k)}</span></li>
        ))}
      </ul>
    </li>
  );
}

/**
 * signOut ends the session and forgets this user's cached list, masters, draft and profile.
 * Leads still waiting to sync are never dropped: the user is warned first, and they stay on
 * the phone, kept for their owner, to be sent when that user signs in again.
 */
async function signOut(profile: Profile | null) {
  const waiting = forOwner(await readQueue(), profile).length; // waiting or refused: not on the server
  if (waiting > 0 && !window.confirm(t('signOut.waiting', { count: waiting }))) return;
  try {
    await api.logout();
  } catch (err) {
    console.warn('sign out', err); // offline: the session ends on the server when it expires
  }
  await storage.forgetUser();
  await storage.forgetProfile();
  window.location.assign('/m/login');
}

export function SideMenu({ open, profile, onClose }: Props) {
  const closeRef = useRef<HTMLButtonElement>(null);
  const panelRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (open) closeRef.current?.focus();
  }, [open]);

  // Escape closes; Tab stays inside the open panel.
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      onClose();
      return;
    }
    if (e.key !== 'Tab' || !panelRef.current) return;
    const focusable = Array.from(panelRef.current.querySelectorAll<HTMLElement>('a[href], button:not([disabled])'))
      .filter((el) => el.offsetParent !== null);
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last?.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first?.focus();
    }
  };

  if (!open) return null;
  return (
    <div className="m-drawer" onKeyDown={onKeyDown}>
      <div className="m-backdrop" onClick={onClose} data-testid="menu-backdrop" />
      <div ref={panelRef} className="m-panel" role="dialog" aria-modal="true" aria-label={t('menu.label')} data-testid="side-menu">
        <button ref={closeRef} type="button" className="m-icon-btn m-panel-close" aria-label={t('menu.close')} onClick={onClose}>
          <span className="m-icon m-icon-close" aria-hidden="true" />
        </button>
        <section className="m-profile" aria-label={t('profile.label')} data-testid="profile">
          <p className="m-profile-name" data-testid="profile-name">{profile?.name}</p>
          <p data-testid="profile-phone">
            <span className="sr-only">{t('profile.phone')}: </span>{profile?.phone}
          </p>
          <p data-testid="profile-email">
            <span className="sr-only">{t('profile.email')}: </span>{profile?.email}
          </p>
        </section>
        <nav aria-label={t('menu.label')}>
          <ul className="m-menu">
            <li><span className="m-menu-item">{t('menu.home')}</span></li>
            <li>
              <Link href={ROUTES.list} className="m-menu-item" aria-current="page" onClick={onClose}>{t('menu.leads')}</Link>
            </li>
            <Group id="menu-requirements" label="menu.requirements" items={['menu.subRequirement1', 'menu.subRequirement2']} />
            <Group id="menu-clients" label="menu.clients" items={['menu.client1', 'menu.client2']} />
            {plain.map((k) => (
              <li key={k}><span className="m-menu-item">{t(k)}</span></li>
            ))}
            <li>
              <button type="button" className="m-menu-item" data-testid="sign-out" onClick={() => void signOut(profile)}>
                {t('menu.signOut')}
              </button>
            </li>
          </ul>
        </nav>
      </div>
    </div>
  );
}
