// Add lead, step 2: billing and shipping addresses (spec sections 2, 4, 5). City, state and
// country offer the spec's options and accept any typed value. Submit saves the lead on
// the phone first, then sends it when online.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { t } from './i18n';
import { Link, navigate, ROUTES } from './router';
import { TextRow } from './FormRow';
import type { Address } from './types';
import { addressFields, isValid, validateAddress, type AddressField, type Errors } from './validation';

/** The spec's options (section 9). */
const OPTIONS: Partial<Record<AddressField, string[]>> = {
  city: ['Chennai', 'Bangalore', 'Hyderabad'],
  state: ['Tamil Nadu', 'Karnataka', 'Telangana'],
  country: ['India', 'USA', 'UK'],
};

const REQUIRED = new Set<AddressField>(['flatNo', 'city', 'state', 'country']);

const AUTOCOMPLETE: Record<AddressField, string> = {
  flatNo: 'address-line1', street: 'address-line2', city: 'address-level2',
  state: 'address-level1', zip: 'postal-code', country: 'country-name',
};

export interface AddressState {
  billing: Address;
  shipping: Address;
  same: boolean;
}

interface Props {
  value: AddressState;
  onChange: (v: AddressState) => void;
  /** onSubmit saves and sends the lead; it resolves when the user may leave the screen. */
  onSubmit: (billing: Address, shipping: Address) => Promise<void>;
}

type Touched = Partial<Record<AddressField, boolean>>;
const allTouched = (): Touched => Object.fromEntries(addressFields.map((f) => [f, true]));

function AddressForm(props: {
  kind: 'billing' | 'shipping';
  value: Address;
  touched: Touched;
  errors: Errors<Address>;
  readOnly?: boolean;
  onField: (f: AddressField, v: string) => void;
  onTouch: (f: AddressField) => void;
}) {
  const { kind, value, touched, errors, readOnly } = props;
  return (
    <table className="m-form-table" role="presentation">
      <tbody>
        {addressFields.map((f) => {
          const id = `${kind}-${f}`;
          const opts = OPTIONS[f];
          return (
            <TextRow key={f} id={id} label={t('address.' + f)} required={REQUIRED.has(f)}
              value={value[f]} error={touched[f] ? errors[f] : undefined} readOnly={readOnly}
              list={opts ? `${f}-options` : undefined} autoComplete={`section-${kind} ${kind} ${AUTOCOMPLETE[f]}`}
              onValue={(v) => props.onField(f, v)} onBlur={() => props.onTouch(f)} />
          );
        })}
      </tbody>
    </table>
  );
}

export function AddLeadStep2({ value, onChange, onSubmit }: Props) {
  const [touched, setTouched] = useState<{ billing: Touched; shipping: Touched }>({ billing: {}, shipping: {} });
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const shipping = value.same ? value.billing : value.shipping;
  const errors = { billing: validateAddress(value.billing), shipping: validateAddress(shipping) };

  useEffect(() => {
    document.title = t('add.title');
  }, []);

  const field = (kind: 'billing' | 'shipping') => (f: AddressField, v: string) => {
    setTouched((s) => ({ ...s, [kind]: { ...s[kind], [f]: true } }));
    onChange({ ...value, [kind]: { ...value[kind], [f]: v } });
  };
  const touch = (kind: 'billing' | 'shipping') => (f: AddressField) =>
    setTouched((s) => (s[kind][f] ? s : { ...s, [kind]: { ...s[kind], [f]: true } }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    if (!isValid(errors.billing) || !isValid(errors.shipping)) {
      setTouched({ billing: allTouched(), shipping: allTouched() });
      const kind = isValid(errors.billing) ? 'shipping' : 'billing';
      const first = addressFields.find((f) => errors[kind][f]);
      formRef.current?.querySelector<HTMLElement>(`#${kind}-${first}`)?.focus();
      return;
    }
    setBusy(true);
    try {
      await onSubmit(value.billing, shipping);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="m-screen">
      <header className="m-header">
        <Link href={ROUTES.addLead} className="m-icon-btn" aria-label={t('add.back')} data-testid="step2-back">
          <span className="m-icon m-icon-back" aria-hidden="true" />
        </Link>
        <h1 className="m-title" tabIndex={-1} data-screen-title>{t('add.title')}</h1>
      </header>
      <main className="m-main" id="main">
        <form ref={formRef} noValidate onSubmit={submit} data-testid="step2-form">
          <section aria-labelledby="billing-title">
            <h2 id="billing-title" className="m-section-title">{t('address.billing')}</h2>
            <AddressForm kind="billing" value={value.billing} touched={touched.billing} errors={errors.billing}
              onField={field('billing')} onTouch={touch('billing')} />
          </section>
          <section aria-labelledby="shipping-title">
            <h2 id="shipping-title" className="m-section-title">{t('address.shipping')}</h2>
            <label className="m-check">
              <input type="checkbox" checked={value.same} data-testid="same-as-billing"
                onChange={(e) => onChange({ ...value, same: e.target.checked, shipping: { ...value.billing } })} />
              {t('address.same')}
            </label>
            <AddressForm kind="shipping" value={shipping} touched={touched.shipping} errors={errors.shipping}
              readOnly={value.same} onField={field('shipping')} onTouch={touch('shipping')} />
          </section>
          {Object.entries(OPTIONS).map(([f, opts]) => (
            <datalist key={f} id={`${f}-options`}>
              {opts.map((o) => <option key={o} value={o} />)}
            </datalist>
          ))}
          <div className="m-actions m-actions-end">
            <Link href={ROUTES.addLead} className="m-btn" data-testid="step2-cancel">{t('button.cancel')}</Link>
            <button type="submit" className="m-btn m-btn-primary" disabled={busy} aria-busy={busy} data-testid="step2-submit">
              {t('button.submit')}
            </button>
          </div>
        </form>
      </main>
    </div>
  );
}
