import { Fieldset, NumberInput, SimpleGrid, Text } from '@mantine/core';
import type { RateLimitField } from '@sluice/contract/schemas/limits';
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

/** The rate limits of a token or a user: requests and tokens per minute, requests in flight (empty: none). */
export const RateLimitFields = ({
  value,
  onChange,
}: {
  value: RateLimitForm;
  onChange: (next: RateLimitForm) => void;
}) => {
  const { t } = useTranslation();
  return (
    <Fieldset legend={t('limits.title')} data-testid="rate-limits">
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
      <Text size="xs" c="dimmed" mt="xs">
        {t('limits.hint')}
      </Text>
    </Fieldset>
  );
};
