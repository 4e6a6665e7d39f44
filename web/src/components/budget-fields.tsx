import { Fieldset, NumberInput, SimpleGrid, Text } from '@mantine/core';
import { BUDGET_FIELDS } from '@sluice/contract/schemas/limits';
import { useTranslation } from 'react-i18next';
import type { BudgetForm } from '../lib/budget-form.js';
import { useQuotaFormatter } from '../lib/format.js';

/**
 * The budgets of a token or a user, in quota units (as the quota fields: the amount, in dollars when
 * the console shows dollars, under each field): per rolling 5 hours, day, week and month (empty: none).
 */
export const BudgetFields = ({
  value,
  onChange,
}: {
  value: BudgetForm;
  onChange: (next: BudgetForm) => void;
}) => {
  const { t } = useTranslation();
  const formatQuota = useQuotaFormatter();
  return (
    <Fieldset legend={t('limits.budgets')} data-testid="budgets">
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        {BUDGET_FIELDS.map((field) => {
          const amount = value[field];
          return (
            <NumberInput
              key={field}
              label={t(`limits.${field}`)}
              description={typeof amount === 'number' && amount > 0 ? formatQuota(amount) : undefined}
              placeholder="∞"
              value={amount}
              onChange={(next) =>
                onChange({
                  ...value,
                  [field]: typeof next === 'number' ? next : next === '' ? '' : Number(next),
                })
              }
              min={0}
              step={1}
              thousandSeparator=","
              name={field}
            />
          );
        })}
      </SimpleGrid>
      <Text size="xs" c="dimmed" mt="xs">
        {t('limits.budgetsHint')}
      </Text>
    </Fieldset>
  );
};
