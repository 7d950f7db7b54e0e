// One lead in the list (spec section 2): Lead ID, status badge, company, customer, dial
// code and phone, email, stage, source and creator. Leads still on the phone say so.
// views/mobile/mobile.templ (leadCard) draws a server lead the same way, text node for text
// node, for the list's first paint.
import { t } from './i18n';
import type { Lead } from './types';

interface Props {
  lead: Lead;
  /** "waiting" until the server has it; "failed" when the server refused it. */
  sync?: 'waiting' | 'failed';
  error?: string;
}

export function LeadCard({ lead, sync, error }: Props) {
  const phone = [lead.company_dial_code, lead.company_phone_number].filter(Boolean).join(' ');
  return (
    <article className={'m-card' + (sync ? ' m-card-' + sync : '')} data-testid="lead-card" data-sync={sync || 'synced'}
      data-client-id={lead.client_id || undefined}>
      <div className="m-card-top">
        <span className="m-card-id" data-testid="lead-id">
          {`${t('card.leadId')}: ${lead.id ? lead.id : '—'}`}
        </span>
        <span className="m-badge" data-testid="lead-status">{lead.lead_status_name || t('card.unknownStatus')}</span>
      </div>
      {sync && (
        <p className={'m-badge m-badge-' + sync} data-testid="lead-sync">
          {sync === 'waiting' ? t('sync.waiting') : t('sync.failed')}
        </p>
      )}
      {error && <p className="m-card-error" data-testid="lead-sync-error">{error}</p>}
      <h2 className="m-card-company" data-testid="lead-company">{lead.company_name}</h2>
      <p className="m-card-customer" data-testid="lead-customer">{lead.customer_name}</p>
      <p data-testid="lead-phone">{phone}</p>
      <p className="m-card-email" data-testid="lead-email">{lead.company_email}</p>
      <dl className="m-card-facts">
        <div>
          <dt>{t('card.stage')}</dt>
          <dd data-testid="lead-stage">{lead.lead_stage_name}</dd>
        </div>
        <div>
          <dt>{t('card.source')}</dt>
          <dd data-testid="lead-source">{lead.lead_source_name || t('card.notAvailable')}</dd>
        </div>
      </dl>
      <p className="m-card-creator" data-testid="lead-creator">
        {`${t('card.createdBy')} ${lead.created_user_name}`}
      </p>
    </article>
  );
}
