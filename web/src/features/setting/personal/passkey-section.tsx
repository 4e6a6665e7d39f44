import { ActionIcon, Badge, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import type { Passkey } from '@sluice/contract/schemas/passkey';
import { IconFingerprint, IconPencil } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmButton } from '../../../components/confirm-button.js';
import { formatTimestamp } from '../../../lib/format.js';
import { passkeysSupported, registerPasskey } from '../../../lib/passkey.js';
import { showSuccess } from '../../../lib/toast.js';
import { PromptDialog } from './prompt-dialog.js';
import { deletePasskey, listPasskeys, renamePasskey } from './passkey-api.js';

/**
 * The caller's passkeys in the personal settings: each signs in on its own, or is the second factor
 * of a password sign-in. Add one (named, then the browser's ceremony), rename it, delete it.
 */
export const PasskeySection = () => {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const passkeys = useQuery({ queryKey: ['passkeys'], queryFn: listPasskeys });
  const [naming, setNaming] = useState<{ passkey?: Passkey } | undefined>();
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ['passkeys'] }),
      queryClient.invalidateQueries({ queryKey: ['2fa', 'status'] }),
    ]);
  const add = useMutation({
    mutationFn: registerPasskey,
    onSuccess: async () => {
      setNaming(undefined);
      showSuccess(t('passkey.added'));
      await refresh();
    },
  });
  const rename = useMutation({
    mutationFn: (input: { id: number; name: string }) => renamePasskey(input.id, input.name),
    onSuccess: async () => {
      setNaming(undefined);
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: deletePasskey,
    onSuccess: async () => {
      showSuccess(t('passkey.deleted'));
      await refresh();
    },
  });
  const editing = naming?.passkey;

  return (
    <Stack gap="sm" data-testid="passkeys">
      <Group gap="sm">
        <IconFingerprint size={20} />
        <Title order={4}>{t('passkey.title')}</Title>
      </Group>
      <Text size="sm" c="dimmed">
        {t('passkey.description')}
      </Text>
      {(passkeys.data ?? []).map((passkey) => (
        <Paper
          key={passkey.id}
          withBorder
          p="sm"
          radius="md"
          data-testid="passkey-row"
          data-name={passkey.name}
        >
          <Group justify="space-between" wrap="nowrap" gap="sm">
            <Stack gap={2} miw={0}>
              <Group gap={6} wrap="nowrap" miw={0}>
                <Text fw={600} size="sm" truncate>
                  {passkey.name}
                </Text>
                {passkey.backed_up && (
                  <Badge size="xs" variant="light" color="teal">
                    {t('passkey.synced')}
                  </Badge>
                )}
              </Group>
              <Text size="xs" c="dimmed">
                {t('passkey.addedAt', { time: formatTimestamp(passkey.created_at) })}
                {' · '}
                {passkey.last_used_at > 0
                  ? t('passkey.usedAt', { time: formatTimestamp(passkey.last_used_at) })
                  : t('passkey.neverUsed')}
              </Text>
            </Stack>
            <Group gap={6} wrap="nowrap">
              <ActionIcon
                variant="subtle"
                aria-label={t('passkey.rename')}
                onClick={() => setNaming({ passkey })}
                data-testid="passkey-rename"
              >
                <IconPencil size={16} />
              </ActionIcon>
              <ConfirmButton
                label={t('common.delete')}
                question={t('passkey.deleteConfirm', { name: passkey.name })}
                onConfirm={() => remove.mutate(passkey.id)}
                size="compact-sm"
                variant="light"
                data-testid="passkey-delete"
              />
            </Group>
          </Group>
        </Paper>
      ))}
      {passkeysSupported() ? (
        <Group>
          <Button
            variant="light"
            leftSection={<IconFingerprint size={16} />}
            onClick={() => setNaming({})}
            data-testid="passkey-add"
          >
            {t('passkey.add')}
          </Button>
        </Group>
      ) : (
        <Text size="sm" c="dimmed">
          {t('passkey.unsupported')}
        </Text>
      )}
      {naming && (
        <PromptDialog
          title={editing ? t('passkey.rename') : t('passkey.add')}
          label={t('passkey.name')}
          placeholder={t('passkey.namePlaceholder')}
          initial={editing?.name ?? ''}
          testId="passkey-name"
          loading={add.isPending || rename.isPending}
          onSubmit={(name) => (editing ? rename.mutate({ id: editing.id, name }) : add.mutate(name))}
          onClose={() => setNaming(undefined)}
        />
      )}
    </Stack>
  );
};
