import { Alert, Group, Stack, Text } from '@mantine/core';
import type { Channel } from '@sluice/contract/schemas/channel';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmButton } from '../../components/confirm-button.js';
import { GroupBadges } from '../../components/group-badges.js';
import { ListPage } from '../../components/list-page.js';
import { setPromptShown, shouldShowPrompt } from '../../lib/storage.js';
import { showSuccess } from '../../lib/toast.js';
import { useSearchableList } from '../../lib/use-paged-list.js';
import { ChannelActions } from './channel-actions.js';
import { deleteDisabledChannels, listChannels, searchChannels } from './channel-api.js';
import {
  BalanceCell,
  ChannelBreakerBadge,
  ChannelStatusBadge,
  ChannelTypeBadge,
  InlineNumber,
  ResponseTimeBadge,
} from './channel-cells.js';
import { ChannelTestButtons, ChannelTestProgress, useChannelTests } from './channel-tests.js';

const PROMPT_TOPIC = 'channel-test';

const NameCell = ({ channel }: { channel: Channel }) => {
  const { t } = useTranslation();
  return (
    <Stack gap={4} align="flex-start">
      <Text inherit>{channel.name || t('common.none')}</Text>
      <GroupBadges groups={channel.group} />
    </Stack>
  );
};

/**
 * Channels (spec §2, admin): search, load more from page 0, test all / disabled / one, balance,
 * priority and weight in place, enable / disable, edit, delete, bulk delete of disabled channels.
 */
export const ChannelListPage = () => {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [showPrompt, setShowPrompt] = useState(() => shouldShowPrompt(PROMPT_TOPIC));
  const list = useSearchableList({
    queryKey: ['channels', 'list'],
    fetchPage: listChannels,
    searchKey: ['channels', 'search'],
    search: searchChannels,
  });
  const tests = useChannelTests();
  const removeDisabled = useMutation({
    mutationFn: deleteDisabledChannels,
    onSuccess: async (count) => {
      showSuccess(t('channel.disabledDeleted', { count }));
      await queryClient.invalidateQueries({ queryKey: ['channels'] });
    },
  });

  return (
    <ListPage
      title={t('channel.title')}
      testId="channel-page"
      add={{ to: '/channel/add', testId: 'channel-add', label: t('channel.add') }}
      actions={
        <>
          <ChannelTestButtons
            running={tests.progress?.running ?? false}
            starting={tests.starting}
            onStart={tests.start}
          />
          <ConfirmButton
            variant="light"
            label={t('channel.deleteDisabled')}
            question={t('channel.deleteDisabledConfirm')}
            loading={removeDisabled.isPending}
            onConfirm={() => removeDisabled.mutate()}
            data-testid="channel-delete-disabled"
          />
        </>
      }
      intro={
        <>
          {showPrompt && (
            <Alert
              variant="light"
              withCloseButton
              onClose={() => {
                setPromptShown(PROMPT_TOPIC);
                setShowPrompt(false);
              }}
              data-testid="channel-prompt"
            >
              {t('channel.prompt')}
            </Alert>
          )}
          <ChannelTestProgress progress={tests.progress} />
        </>
      }
      list={list}
      searchPlaceholder={t('channel.searchPlaceholder')}
      emptyText={t('channel.empty')}
      columns={[
        { label: t('channel.id'), cell: (channel) => channel.id },
        { label: t('channel.name'), cell: (channel) => <NameCell channel={channel} /> },
        { label: t('channel.type'), cell: (channel) => <ChannelTypeBadge type={channel.type} /> },
        {
          label: t('common.status'),
          cell: (channel) => (
            <Group gap={4} wrap="nowrap">
              <ChannelStatusBadge status={channel.status} />
              <ChannelBreakerBadge channel={channel} />
            </Group>
          ),
        },
        { label: t('channel.responseTime'), cell: (channel) => <ResponseTimeBadge channel={channel} /> },
        { label: t('channel.balance'), cell: (channel) => <BalanceCell channel={channel} /> },
        {
          label: t('channel.priority'),
          cell: (channel) => <InlineNumber key={`p${channel.priority}`} channel={channel} field="priority" />,
        },
        {
          label: t('channel.weight'),
          cell: (channel) => <InlineNumber key={`w${channel.weight}`} channel={channel} field="weight" />,
        },
      ]}
      rowActions={(channel) => <ChannelActions channel={channel} />}
      attributes={(channel) => ({ 'data-testid': 'channel-row', 'data-id': channel.id })}
    />
  );
};
