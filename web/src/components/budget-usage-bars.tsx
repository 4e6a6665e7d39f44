import { Progress, Stack, Text, Tooltip } from '@mantine/core';
import type { BudgetWindowUsage } from '@sluice/contract/schemas/limits';
import { useTranslation } from 'react-i18next';
import { useQuotaFormatter } from '../lib/format.js';

/** A share of a budget spent, 0–100; red past 90 %, orange past 70 %. */
const colourOf = (percent: number): string => (percent >= 90 ? 'red' : percent >= 70 ? 'orange' : 'teal');

/** A token's (or user's) budget windows as bars: what each window holds of its budget. */
export const BudgetUsageBars = ({ usage }: { usage: readonly BudgetWindowUsage[] | undefined }) => {
  const { t } = useTranslation();
  const formatQuota = useQuotaFormatter();
  if (!usage || usage.length === 0) return null;
  return (
    <Stack gap={4} data-testid="budget-usage" miw={120}>
      {usage.map((window) => {
        const percent = window.limit > 0 ? Math.min(100, (window.used / window.limit) * 100) : 0;
        const label = t('limits.windowUsed', {
          used: formatQuota(window.used),
          limit: formatQuota(window.limit),
        });
        return (
          <Tooltip key={window.window} label={label}>
            <div data-testid={`budget-window-${window.window}`} data-percent={Math.round(percent)}>
              <Text size="xs" c="dimmed">
                {t(`limits.window_${window.window}`)} · {label}
              </Text>
              <Progress value={percent} color={colourOf(percent)} size="sm" aria-label={label} />
            </div>
          </Tooltip>
        );
      })}
    </Stack>
  );
};
