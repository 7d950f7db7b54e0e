// Add lead, step 1: General Information (spec sections 2, 4, 5). Every change is saved as
// the draft; errors show once a field was touched or changed; Next on an invalid form
// marks every field touched and stays.
import { useEffect, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { config } from './config';
import { FormRow, TextRow } from './FormRow';
import { t } from './i18n';
import { Link, navigate, ROUTES } from './router';
import type { LeadForm, Masters } from './types';
import { readDataURL } from './util';
import { isValid, step1Fields, validateStep1, type Step1Field } from './validation';

interface Props {
  form: LeadForm;
  masters: Masters;
  onChange: (f: LeadForm) => void;
}

export function AddLeadStep1({ form, masters, onChange }: Props) {
  const [touched, setTouched] = useState<Partial<Record<Step1Field, boolean>>>({});
  const [logoError, setLogoError] = useState('');
  const formRef = useRef<HTMLFormElement>(null);
  const errors = validateStep1(form);
  const shown = (f: Step1Field) => (touched[f] ? errors[f] : undefined);
  const touch = (f: Step1Field) => setTouched((s) => (s[f] ? s : { ...s, [f]: true }));
  const set = (f: Step1Field) => (v: string) => {
    touch(f);
    onChange({ ...form, [f]: v });
  };

  useEffect(() => {
    document.title = t('add.title');
  }, []);

  const onLogo = async (e: ChangeEvent<HTMLInputElement>) => {
    const input = e.target;
    const file = input.files?.[0];
    if (!file) return;
    const { imageTypes, maxFileSizeKB } = config();
    setLogoError('');
    if (!imageTypes.includes(file.type)) {
      setLogoError(t('logo.invalidType'));
      input.value = '';
      return;
    }
    if (file.size > maxFileSizeKB * 1024) {
      setLogoError(t('logo.tooLarge', { kb: maxFileSizeKB }));
      input.value = '';
      return;
    }
    try {
      onChange({ ...form, logo: await readDataURL(file), logoName: file.name });
    } catch (err) {
      console.error('logo', err);
      setLogoError(t('logo.invalidType'));
    }
    input.value = '';
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!isValid(errors)) {
      setTouched(Object.fromEntries(step1Fields.map((f) => [f, true])));
      const first = step1Fields.find((f) => errors[f]);
      if (first) formRef.current?.querySelector<HTMLElement>('#' + first)?.focus();
      return;
    }
    onChange(form);
    navigate(ROUTES.addLeadAddress);
  };

  const select = (f: 'leadType' | 'leadSource', placeholder: string, options: Masters['types'], required = false) => (
    <FormRow id={f} label={t('field.' + f)} required={required} error={shown(f)}>
      {(aria) => (
        <select {...aria} name={f} value={form[f]} onChange={(e) => set(f)(e.target.value)} onBlur={() => touch(f)}>
          <option value="">{placeholder}</option>
          {options.map((o) => <option key={o.value} value={String(o.value)}>{o.label}</option>)}
        </select>
      )}
    </FormRow>
  );

  return (
    <div className="m-screen">
      <header className="m-header">
        <Link href={ROUTES.list} className="m-icon-btn" aria-label={t('add.back')} data-testid="step1-back">
          <span className="m-icon m-icon-back" aria-hidden="true" />
        </Link>
        <h1 className="m-title" tabIndex={-1} data-screen-title>{t('add.title')}</h1>
      </header>
      <main className="m-main" id="main">
        <form ref={formRef} noValidate onSubmit={onSubmit} data-testid="step1-form" aria-labelledby="general-title">
          <h2 id="general-title" className="m-section-title">{t('add.general')}</h2>
          <table className="m-form-table" role="presentation">
            <tbody>
              <TextRow id="leadName" label={t('field.leadName')} required value={form.leadName} error={shown('leadName')}
                autoComplete="name" onValue={set('leadName')} onBlur={() => touch('leadName')} />
              <TextRow id="company" label={t('field.company')} value={form.company} error={shown('company')}
                autoComplete="organization" onValue={set('company')} onBlur={() => touch('company')} />
              <TextRow id="email" label={t('field.email')} required type="email" inputMode="email" autoComplete="email"
                value={form.email} error={shown('email')} onValue={set('email')} onBlur={() => touch('email')} />
              <TextRow id="phone" label={t('field.phone')} required type="tel" inputMode="numeric" autoComplete="tel-national"
                value={form.phone} error={shown('phone')} onValue={set('phone')} onBlur={() => touch('phone')} />
              {select('leadType', t('select.leadType'), masters.types, true)}
              {select('leadSource', t('select.leadSource'), masters.sources)}
              <FormRow id="logo" label={t('field.logo')} error={undefined}>
                {(aria) => (
                  <div className="m-file">
                    <input {...aria} type="file" className="m-file-input" accept={config().imageTypes.join(',')}
                      aria-describedby={'logo-name' + (logoError ? ' logo-error' : '')} onChange={onLogo} data-testid="logo-input" />
                    <span className="m-btn m-file-btn" aria-hidden="true">{t('logo.choose')}</span>
                    <span id="logo-name" className="m-file-name" data-testid="logo-name">{form.logoName || t('logo.none')}</span>
                    {form.logo && (
                      <button type="button" className="m-link-btn" data-testid="logo-remove"
                        onClick={() => onChange({ ...form, logo: '', logoName: '' })}>
                        {t('logo.remove')}
                      </button>
                    )}
                    {logoError && <p id="logo-error" className="m-field-error" role="alert" data-testid="logo-error">{logoError}</p>}
                  </div>
                )}
              </FormRow>
            </tbody>
          </table>
          <div className="m-actions m-actions-end">
            <Link href={ROUTES.list} className="m-btn" data-testid="step1-cancel">{t('button.cancel')}</Link>
            <button type="submit" className="m-btn m-btn-primary" data-testid="step1-next">{t('button.next')}</button>
          </div>
        </form>
      </main>
    </div>
  );
}
