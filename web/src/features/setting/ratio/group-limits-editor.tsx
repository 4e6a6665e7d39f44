import { Badge, Box, Group, NativeSelect, Stack, Text, Title } from '@mantine/core';
import { ROUTING_STRATEGIES, isRoutingStrategy } from '@sluice/contract/routing-strategies';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { RateLimitFields } from '../../../components/rate-limit-fields.js';
import {
  groupRows,
  validGroupLimits,
  withGroupLimits,
  withGroupStrategy,
  type GroupRow,
} from './group-limits-model.js';

/**
 * One row per group of the group ratio (and any group the options name beside it): its requests and
 * tokens per minute and requests in flight (GroupRateLimits), and, for root, its routing strategy
 * (GroupRoutingStrategies). Each change rewrites the option's text in the section's form.
 */
export const GroupLimitsEditor = ({
  ratioText,
  limitsText,
  strategiesText,
  onLimitsChange,
  onStrategiesChange,
  serverStrategy,
}: {
  ratioText: string;
  limitsText: string;
  strategiesText: string;
  onLimitsChange: (text: string) => void;
  /** Absent when the user may not change GroupRoutingStrategies (administrators): no routing field. */
  onStrategiesChange?: (text: string) => void;
  /** The RoutingStrategy option, named in the default choice. */
  serverStrategy?: string;
}) => {
  const { t } = useTranslation();
  const rows = useMemo(
    () => groupRows(ratioText, limitsText, strategiesText),
    [ratioText, limitsText, strategiesText],
  );
  const strategyOptions = useMemo(
    () => [
      {
        value: '',
        label: isRoutingStrategy(serverStrategy)
          ? t('groupLimits.strategyDefaultIs', { strategy: t(`groupLimits.strategies.${serverStrategy}`) })
          : t('groupLimits.strategyDefault'),
      },
      ...ROUTING_STRATEGIES.map((strategy) => ({
        value: strategy,
        label: t(`groupLimits.strategies.${strategy}`),
      })),
    ],
    [t, serverStrategy],
  );

  const legendOf = (row: GroupRow) => (
    <Group gap="xs" wrap="wrap">
      <Text fw={600} size="sm" style={{ overflowWrap: 'anywhere' }}>
        {row.group}
      </Text>
      {row.ratio === undefined ? (
        <Badge size="xs" variant="light" color="gray">
          {t('groupLimits.notInRatio')}
        </Badge>
      ) : (
        <Text size="xs" c="dimmed">
          {t('groupLimits.ratio', { ratio: row.ratio })}
        </Text>
      )}
    </Group>
  );

  return (
    <Stack gap="xs" data-testid="group-limits">
      <Title order={5}>{t('groupLimits.title')}</Title>
      <Text size="xs" c="dimmed">
        {t('groupLimits.hint')}
      </Text>
      {rows.length === 0 && (
        <Text size="sm" c="dimmed" data-testid="group-limits-none">
          {t('groupLimits.none')}
        </Text>
      )}
      {rows.map((row) => (
        <Box key={row.group} data-testid="group-limit-row" data-group={row.group}>
          <RateLimitFields
            legend={legendOf(row)}
            hint={false}
            value={row.limits}
            onChange={(limits) => onLimitsChange(withGroupLimits(limitsText, row.group, limits))}
          >
            {!validGroupLimits(row.limits) && (
              <Text size="sm" c="red" mt="xs" role="alert" data-testid="group-limit-invalid">
                {t('groupLimits.invalid')}
              </Text>
            )}
            {onStrategiesChange && (
              <NativeSelect
                mt="xs"
                maw={{ base: '100%', sm: 260 }}
                label={t('groupLimits.strategy')}
                data={strategyOptions}
                value={row.strategy}
                name="strategy"
                onChange={(event) => {
                  const next = event.currentTarget.value;
                  onStrategiesChange(
                    withGroupStrategy(strategiesText, row.group, isRoutingStrategy(next) ? next : ''),
                  );
                }}
              />
            )}
          </RateLimitFields>
        </Box>
      ))}
    </Stack>
  );
};
