import { Badge, Loader, NumberInput, Text, Tooltip, UnstyledButton } from '@mantine/core';
import type { Channel } from '@sluice/contract/schemas/channel';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { entryOf } from '../../lib/entry-of.js';
import { formatTimestamp } from '../../lib/format.js';
import { showInfo, showSuccess } from '../../lib/toast.js';
import { patchChannel, updateChannelBalance } from './channel-api.js';
import {
  badgeColor,
  balanceText,
  CHANNEL_STATUSES,
  channelTypeLabel,
  channelTypeOf,
  priorityOf,
  RESPONSE_TIME_COLORS,
  responseSeconds,
  responseTimeLevel,
  weightOf,
} from './channel-display.js';

/** The cells of a channel row that show or edit one value. */

export const ChannelTypeBadge = ({ type }: { type: number }) => {
  const { t, i18n } = useTranslation();
  const entry = channelTypeOf(type);
  return (
    <Badge
      color={entry ? badgeColor(entry.color) : 'gray'}
      variant="outline"
      style={{ whiteSpace: 'nowrap' }}
    >
      {entry ? channelTypeLabel(entry, i18n.language) : t('channel.unknownType')}
    </Badge>
  );
};

export const ChannelStatusBadge = ({ status }: { status: number }) => {
  const { t } = useTranslation();
  const entry = entryOf(CHANNEL_STATUSES, status);
  if (!entry)
    return (
      <Badge color="gray" variant="light">
        {t('common.unknownStatus')}
      </Badge>
    );
  return (
    <Tooltip label={t(`channel.statusHint.${entry.key}`)}>
      <Badge color={entry.color} variant="light" data-testid="channel-status">
        {t(`channel.status.${entry.key}`)}
      </Badge>
    </Tooltip>
  );
};

/**
 * The channel's breaker when it is not closed (the relay passes a channel that failed repeatedly
 * over until `cooled_until`, then probes it with one request).
 */
export const ChannelBreakerBadge = ({
  channel,
}: {
  channel: Pick<Channel, 'breaker_state' | 'cooled_until'>;
}) => {
  const { t } = useTranslation();
  const state = channel.breaker_state;
  if (state !== 'open' && state !== 'half_open') return null;
  return (
    <Tooltip label={t(`channel.breakerHint.${state}`, { time: formatTimestamp(channel.cooled_until ?? 0) })}>
      <Badge color={state === 'open' ? 'orange' : 'yellow'} variant="outline" data-testid="channel-breaker">
        {t(`channel.breaker.${state}`)}
      </Badge>
    </Tooltip>
  );
};

/** Spec §4: grey when untested, red when the last test failed, then green, olive, yellow or red by milliseconds. */
export const ResponseTimeBadge = ({ channel }: { channel: Pick<Channel, 'response_time' | 'test_time'> }) => {
  const { t } = useTranslation();
  const level = responseTimeLevel(channel.response_time, channel.test_time);
  const time = formatTimestamp(channel.test_time);
  return (
    <Tooltip
      label={
        level === 'untested'
          ? t('channel.untested')
          : level === 'failed'
            ? t('channel.testFailedAt', { time })
            : t('channel.testedAt', { time })
      }
    >
      <Badge
        color={RESPONSE_TIME_COLORS[level]}
        variant="light"
        tt="none"
        data-testid="channel-response-time"
        data-level={level}
      >
        {level === 'untested'
          ? t('channel.untested')
          : level === 'failed'
            ? t('channel.testFailed')
            : t('channel.seconds', { seconds: responseSeconds(channel.response_time) })}
      </Badge>
    </Tooltip>
  );
};

/** Spec §9: the balance in the type's unit; a click reads it again from the provider. */
export const BalanceCell = ({ channel }: { channel: Channel }) => {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const update = useMutation({
    mutationFn: () => updateChannelBalance(channel.id),
    onSuccess: async () => {
      showInfo(t('channel.balanceUpdated', { name: channel.name }));
      await queryClient.invalidateQueries({ queryKey: ['channels'] });
    },
  });
  const text = balanceText(channel.type, channel.balance);
  if (text === undefined)
    return (
      <Text size="sm" c="dimmed" style={{ whiteSpace: 'nowrap' }} data-testid="channel-balance">
        {t('channel.notSupported')}
      </Text>
    );
  return (
    <Tooltip
      label={
        channel.balance_updated_time
          ? t('channel.balanceUpdatedAt', { time: formatTimestamp(channel.balance_updated_time) })
          : t('channel.clickToUpdate')
      }
    >
      <UnstyledButton
        fz="sm"
        onClick={() => update.mutate()}
        disabled={update.isPending}
        style={{ whiteSpace: 'nowrap', textDecoration: 'underline dotted' }}
        data-testid="channel-balance"
      >
        {update.isPending ? <Loader size={14} /> : text}
      </UnstyledButton>
    </Tooltip>
  );
};

/**
 * Priority or weight, edited in place: saved on blur or Enter when changed (`{id, priority}` or
 * `{id, weight}`); a blank field is ignored and a negative weight is sent as 0 (spec §5).
 */
export const InlineNumber = ({ channel, field }: { channel: Channel; field: 'priority' | 'weight' }) => {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const current = channel[field];
  const [text, setText] = useState(String(current));
  const save = useMutation({
    mutationFn: (value: number) =>
      patchChannel(channel.id, field === 'priority' ? { priority: value } : { weight: value }),
    onSuccess: async () => {
      showSuccess(t('common.operationSuccess'));
      await queryClient.invalidateQueries({ queryKey: ['channels'] });
    },
    onError: () => setText(String(current)),
  });
  const commit = () => {
    const value = field === 'priority' ? priorityOf(text) : weightOf(text);
    if (value === undefined) {
      setText(String(current));
      return;
    }
    setText(String(value));
    if (value !== current) save.mutate(value);
  };
  return (
    <Tooltip label={t(field === 'priority' ? 'channel.priorityHint' : 'channel.weightHint')}>
      <NumberInput
        size="xs"
        w={64}
        value={text}
        onChange={(value) => setText(String(value))}
        onBlur={commit}
        onKeyDown={(event) => {
          if (event.key === 'Enter') event.currentTarget.blur();
        }}
        allowDecimal={false}
        hideControls
        disabled={save.isPending}
        aria-label={t(field === 'priority' ? 'channel.priority' : 'channel.weight')}
        data-testid={`channel-${field}`}
      />
    </Tooltip>
  );
};
