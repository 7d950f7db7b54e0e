// One labelled field of the add-lead forms, laid out as a table row, with its error tied
// to the input by aria-describedby.
import type { InputHTMLAttributes, ReactNode } from 'react';
import { t } from './i18n';

interface RowProps {
  id: string;
  label: string;
  required?: boolean;
  /** The message key of the error to show, if any. */
  error?: string;
  children: (aria: { id: string; 'aria-invalid': boolean; 'aria-describedby'?: string; 'aria-required'?: boolean }) => ReactNode;
}

export function FormRow({ id, label, required, error, children }: RowProps) {
  const errId = id + '-error';
  return (
    <tr>
      <th scope="row">
        <label htmlFor={id}>
          {label}
          {required && <span className="m-required" aria-hidden="true"> *</span>}
        </label>
      </th>
      <td>
        {children({ id, 'aria-invalid': !!error, 'aria-describedby': error ? errId : undefined, 'aria-required': required || undefined })}
        {error && <p id={errId} className="m-field-error" data-testid={id + '-error'}>{t(error)}</p>}
      </td>
    </tr>
  );
}

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value'> & {
  id: string;
  label: string;
  value: string;
  error?: string;
  onValue: (v: string) => void;
};

/** TextRow is a FormRow holding a text input. */
export function TextRow({ id, label, required, error, value, onValue, ...rest }: InputProps) {
  return (
    <FormRow id={id} label={label} required={required} error={error}>
      {(aria) => <input {...rest} {...aria} name={id} value={value} onChange={(e) => onValue(e.target.value)} />}
    </FormRow>
  );
}
