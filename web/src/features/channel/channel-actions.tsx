import { ActionIcon, Button, Group, Menu, Tooltip } from '@mantine/core';
import { IconCheck, IconChevronDown, IconPencil, IconTrash } from '@tabler/icons-react';
import { splitCommaList, type Channel } from '@sluice/contract/schemas/channel';
import { CHANNEL_STATUS } from '@sluice/contract/statuses';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ConfirmButton } from '../../components/confirm-button.js';
import { showInfo, showSuccess } from '../../lib/toast.js';
import { deleteChannel, patchChannel, testChannel } from './channel-api.js';

/** The model a row tests with first: the channel's test model when it serves it, else its first model. */
export const defaultTestModel = (channel: Pick<Channel, 'models' | 'test_model'>): string => {
  const models = splitCommaList(channel.models);
  return models.includes(channel.test_model) ? channel.test_model : (models[0] ?? '');
};

/** Test (with a model picker), enable or disable, edit and delete one channel. */
export const ChannelActions = ({ channel }: { channel: Channel }) => {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['channels'] });
  const models = splitCommaList(channel.models);
  const [picked, setPicked] = useState(() => defaultTestModel(channel));
  // A model no longer served (the channel was edited) falls back to the default.
  const model = models.includes(picked) ? picked : defaultTestModel(channel);
  const test = useMutation({
    mutationFn: (candidate: string) => testChannel(channel.id, candidate),
    onSuccess: (result, candidate) =>
      showInfo(
        t('channel.testSuccess', {
          name: channel.name,
          model: result.model || candidate,
          seconds: result.time.toFixed(2),
        }),
      ),
    onSettled: refresh,
  });
  const toggle = useMutation({
    mutationFn: () =>
      patchChannel(channel.id, {
        status:
          channel.status === CHANNEL_STATUS.enabled
            ? CHANNEL_STATUS.manuallyDisabled
            : CHANNEL_STATUS.enabled,
      }),
    onSuccess: async () => {
      showSuccess(t('common.operationSuccess'));
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: () => deleteChannel(channel.id),
    onSuccess: async () => {
      showSuccess(t('common.operationSuccess'));
      await refresh();
    },
  });
  const runTest = (candidate: string) => {
    setPicked(candidate);
    test.mutate(candidate);
  };

  return (
    <Group gap={6} wrap="wrap">
      <Group gap={0} wrap="nowrap">
        <Tooltip label={model === '' ? t('channel.noModels') : t('channel.testWith', { model })}>
          <Button
            size="compact-sm"
            color="teal"
            loading={test.isPending}
            onClick={() => runTest(model)}
            style={{ borderTopRightRadius: 0, borderBottomRightRadius: 0 }}
            data-testid="channel-test"
          >
            {t('channel.test')}
          </Button>
        </Tooltip>
        <Menu position="bottom-end" withinPortal>
          <Menu.Target>
            <ActionIcon
              size={26}
              color="teal"
              variant="filled"
              disabled={models.length === 0 || test.isPending}
              style={{
                borderTopLeftRadius: 0,
                borderBottomLeftRadius: 0,
                borderLeft: '1px solid rgba(255,255,255,.4)',
              }}
              aria-label={t('channel.testModel')}
              data-testid="channel-test-menu"
            >
              <IconChevronDown size={14} />
            </ActionIcon>
          </Menu.Target>
          <Menu.Dropdown mah={320} style={{ overflowY: 'auto' }}>
            <Menu.Label>{t('channel.testModel')}</Menu.Label>
            {models.map((candidate) => (
              <Menu.Item
                key={candidate}
                leftSection={candidate === model ? <IconCheck size={14} /> : <span style={{ width: 14 }} />}
                onClick={() => runTest(candidate)}
                data-testid="channel-test-model"
              >
                {candidate}
              </Menu.Item>
            ))}
          </Menu.Dropdown>
        </Menu>
      </Group>
      <Button
        size="compact-sm"
        variant="default"
        loading={toggle.isPending}
        onClick={() => toggle.mutate()}
        data-testid="channel-toggle"
      >
        {channel.status === CHANNEL_STATUS.enabled ? t('common.disable') : t('common.enable')}
      </Button>
      <Tooltip label={t('common.edit')}>
        <ActionIcon
          size={26}
          variant="default"
          component={Link}
          to={`/channel/edit/${channel.id}`}
          aria-label={t('common.edit')}
          data-testid="channel-edit"
        >
          <IconPencil size={15} />
        </ActionIcon>
      </Tooltip>
      <ConfirmButton
        size="compact-sm"
        variant="light"
        px={6}
        aria-label={t('common.delete')}
        label={<IconTrash size={15} />}
        question={t('channel.deleteConfirm', { name: channel.name })}
        loading={remove.isPending}
        onConfirm={() => remove.mutate()}
        data-testid="channel-delete"
      />
    </Group>
  );
};
