import { NumberInput, PasswordInput, Select, Textarea, TextInput } from '@mantine/core';
import { isSecretOptionKey, OPTION_DEFINITIONS, type OptionKey } from '@sluice/contract/option-keys';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { enOptions } from '../../../i18n/en/options.js';

/** Option keys with a label (options.field.<key>). */
export type FieldKey = keyof (typeof enOptions)['options']['field'] & OptionKey;

/** One field of a section; its input follows the option's kind in the contract's option table. */
export interface FieldSpec {
  readonly key: FieldKey;
  /** A multi-line text (notice, about, footer…). */
  readonly multiline?: boolean;
  /** Number step (QuotaPerUnit 0.01, RetryTimes 1). */
  readonly step?: number;
  readonly placeholder?: string;
  readonly description?: ReactNode;
  /** Spans the whole row of the section's grid. */
  readonly wide?: boolean;
}

const MONO = { input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } };

/** The input of one option (controlled; values are the option's text). */
export const OptionField = ({
  field,
  value,
  onChange,
  error,
}: {
  field: FieldSpec;
  value: string;
  onChange: (value: string) => void;
  /** Marks the field a refused save named. */
  error?: boolean;
}) => {
  const { t } = useTranslation();
  const definition = OPTION_DEFINITIONS[field.key];
  const common = {
    label: t(`options.field.${field.key}`),
    description: field.description,
    placeholder: field.placeholder,
    name: field.key,
    error,
    'data-testid': `option-${field.key}`,
  };
  if (isSecretOptionKey(field.key))
    return (
      <PasswordInput
        {...common}
        placeholder={field.placeholder ?? t('options.secretPlaceholder')}
        value={value}
        onChange={(event) => onChange(event.currentTarget.value)}
        autoComplete="new-password"
      />
    );
  if (definition.kind === 'int' || definition.kind === 'float')
    return (
      <NumberInput
        {...common}
        value={value}
        onChange={(next) => onChange(String(next))}
        min={0}
        step={field.step ?? 1}
        allowDecimal={definition.kind === 'float'}
        allowNegative={false}
      />
    );
  if (definition.kind === 'json')
    return (
      <Textarea
        {...common}
        value={value}
        onChange={(event) => onChange(event.currentTarget.value)}
        autosize
        minRows={6}
        maxRows={18}
        styles={MONO}
        spellCheck={false}
      />
    );
  if ('choices' in definition)
    return (
      <Select
        {...common}
        data={[...definition.choices]}
        value={value || definition.defaultValue}
        allowDeselect={false}
        onChange={(next) => onChange(next ?? definition.defaultValue)}
      />
    );
  if (field.multiline)
    return (
      <Textarea
        {...common}
        value={value}
        onChange={(event) => onChange(event.currentTarget.value)}
        autosize
        minRows={3}
        maxRows={14}
      />
    );
  return <TextInput {...common} value={value} onChange={(event) => onChange(event.currentTarget.value)} />;
};
