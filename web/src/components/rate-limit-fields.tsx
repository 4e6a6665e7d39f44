import { Fieldset, NumberInput, SimpleGrid, Text } from '@mantine/core';
import type { RateLimitField } from '@sluice/contract/schemas/limits';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { RateLimitForm } from '../lib/rate-limit-form.js';

const FIELDS: readonly {
  field: RateLimitField;
  label: 'limits.rpm' | 'limits.tpm' | 'limits.concurrency';
}[] = [
  { field: 'rpm_limit', label: 'limits.rpm' },
  { field: 'tpm_limit', label: 'limits.tpm' },
  { field: 'concurrency_limit', label: 'limits.concurrency' },
];

/**
 * The rate limits of a token, a user or a group: requests and tokens per minute, requests in flight
 * (empty: none). A group's row names the group (`legend`), leaves the shared hint to its list
 * (`hint={false}`) and adds its own fields after the limits (`children`).
 */
export const RateLimitFields = ({
  value,
  onChange,
  legend,
  hint = true,
  children,
}: {
  value: RateLimitForm;
  onChange: (next: RateLimitForm) => void;
  legend?: ReactNode;
  hint?: boolean;
  children?: ReactNode;
}) => {
  const { t } = useTranslation();
  return (
    <Fieldset legend={legend ?? t('limits.title')} data-testid="rate-limits">
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        {FIELDS.map(({ field, label }) => (
          <NumberInput
            key={field}
            label={t(label)}
            description={field === 'tpm_limit' ? t('limits.tpmHint') : undefined}
            placeholder="∞"
            value={value[field]}
            onChange={(next) =>
              onChange({
                ...value,
                [field]: typeof next === 'number' ? next : next === '' ? '' : Number(next),
              })
            }
            min={0}
            step={1}
            allowDecimal={false}
            allowNegative={false}
            thousandSeparator=","
            name={field}
          />
        ))}
      </SimpleGrid>
      {children}
      {hint && (
        <Text size="xs" c="dimmed" mt="xs">
          {t('limits.hint')}
        </Text>
      )}
    </Fieldset>
  );
};
