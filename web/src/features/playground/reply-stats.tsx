import { Group, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useQuotaFormatter } from '../../lib/format.js';
import { useStoredValue } from '../../lib/storage.js';
import type { StoredTurn } from '../../lib/stored-conversation.js';

/** Digits of a reply's cost in dollars: a reply costs fractions of a cent. */
export const COST_DIGITS = 6;

/** A reply's figures: tokens in and out, its cost (in dollars and quota), first-byte and total time. */
export const ReplyStats = ({ stats }: { stats: NonNullable<StoredTurn['stats']> }) => {
  const { t } = useTranslation();
  const formatQuota = useQuotaFormatter();
  const inCurrency = useStoredValue('display_in_currency') ?? true;
  const ms = (value: number | undefined) => (value === undefined ? undefined : Math.round(value));
  const parts = [
    t('playground.stats.tokens', { prompt: stats.promptTokens, completion: stats.completionTokens }),
    stats.quota === undefined
      ? t('playground.stats.costUnknown')
      : inCurrency
        ? t('playground.stats.cost', { cost: formatQuota(stats.quota, COST_DIGITS), quota: stats.quota })
        : t('playground.stats.costUnits', { quota: stats.quota }),
    ms(stats.firstByteMs) !== undefined && t('playground.stats.firstByte', { ms: ms(stats.firstByteMs) }),
    ms(stats.totalMs) !== undefined && t('playground.stats.total', { ms: ms(stats.totalMs) }),
  ].filter((part): part is string => typeof part === 'string');
  return (
    <Group gap={4} wrap="wrap" data-testid="playground-stats" data-quota={stats.quota ?? ''}>
      {parts.map((part, index) => (
        <Text key={part} size="xs" c="dimmed">
          {index > 0 ? `· ${part}` : part}
        </Text>
      ))}
    </Group>
  );
};
