import { Badge, Button, Select, Stack, Table, Text } from '@mantine/core';
import { channelKeyStateSchema, KEY_SELECTIONS, keySelectionOf } from '@sluice/contract/channel-keys';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { api } from '../../lib/api-client.js';
import { showSuccess } from '../../lib/toast.js';
import type { ChannelFormState } from './channel-form-model.js';

/** GET /api/channel/{id}/keys: the channel's keys, masked, with their states. */
export const listChannelKeys = (id: number) =>
  api.get(`/api/channel/${id}/keys`, z.array(channelKeyStateSchema));

/** POST /api/channel/{id}/keys/enable: one key (by its id) serves again. */
export const enableChannelKey = (id: number, keyId: string) =>
  api.send('POST', `/api/channel/${id}/keys/enable`, { key_id: keyId });

export interface ChannelKeyStatesProps {
  readonly id: number;
  readonly form: ChannelFormState;
  readonly set: <K extends keyof ChannelFormState>(key: K, value: ChannelFormState[K]) => void;
}

/**
 * A channel of several keys (one per line in its key field): how they take turns (config
 * `key_selection`) and, when editing, each key's state, masked, with a button that re-enables a key
 * the upstream refused.
 */
export const ChannelKeyStates = ({ id, form, set }: ChannelKeyStatesProps) => {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const keys = useQuery({
    queryKey: ['channels', 'keys', id],
    queryFn: () => listChannelKeys(id),
    enabled: id > 0,
  });
  const enable = useMutation({
    mutationFn: (keyId: string) => enableChannelKey(id, keyId),
    onSuccess: async () => {
      showSuccess(t('channel.keys.enabled'));
      await queryClient.invalidateQueries({ queryKey: ['channels', 'keys', id] });
    },
  });
  const selection = keySelectionOf(form.otherConfig);
  const rows = keys.data ?? [];
  return (
    <Stack gap={4} data-testid="channel-key-states">
      <Select
        label={t('channel.keys.selection')}
        description={t('channel.keys.selectionHint')}
        data={KEY_SELECTIONS.map((value) => ({ value, label: t(`channel.keys.${value}`) }))}
        value={selection}
        allowDeselect={false}
        onChange={(value) => {
          const next: Record<string, unknown> = { ...form.otherConfig };
          if (value === 'random') next['key_selection'] = 'random';
          else delete next['key_selection'];
          set('otherConfig', next);
        }}
        data-testid="channel-key-selection"
      />
      {rows.length > 1 && (
        <Table withTableBorder fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>#</Table.Th>
              <Table.Th>{t('channel.keys.key')}</Table.Th>
              <Table.Th>{t('channel.keys.state')}</Table.Th>
              <Table.Th>{t('channel.keys.reason')}</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((key) => (
              <Table.Tr key={key.id} data-testid={`channel-key-${key.index}`}>
                <Table.Td>{key.index + 1}</Table.Td>
                <Table.Td ff="monospace">{key.masked}</Table.Td>
                <Table.Td>
                  <Badge color={key.enabled ? 'green' : 'red'} variant="light">
                    {key.enabled ? t('channel.keys.on') : t('channel.keys.off')}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  {!key.enabled && (
                    <Text size="xs">
                      {new Date(key.disabled_at * 1000).toLocaleString(i18n.language)} · {key.reason}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  {!key.enabled && (
                    <Button
                      size="compact-xs"
                      variant="light"
                      loading={enable.isPending && enable.variables === key.id}
                      onClick={() => enable.mutate(key.id)}
                    >
                      {t('channel.keys.enable')}
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
};
