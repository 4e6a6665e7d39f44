import { Button, Group, Stack, Text, Textarea } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '../../lib/toast.js';
import { saveWebhooks } from './alerts-api.js';

const EXAMPLE = JSON.stringify(
  [
    {
      name: 'ops',
      url: 'https://alerts.example.com/sluice',
      secret: 'a-secret-of-16-characters-or-more',
      events: ['channel.disabled', 'channel.enabled'],
    },
  ],
  null,
  2,
);

/**
 * Root replaces the webhook list (AlertWebhooks is a secret option: never shown again, so the whole
 * list is typed anew); the server refuses a list of the wrong shape, naming the entry.
 */
export const WebhookEditor = () => {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [text, setText] = useState('');
  const save = useMutation({
    mutationFn: () => saveWebhooks(text),
    onSuccess: async () => {
      showSuccess(t('alerts.saved'));
      setText('');
      await queryClient.invalidateQueries({ queryKey: ['alert-webhooks'] });
    },
  });
  return (
    <Stack gap="xs" data-testid="alert-webhook-editor">
      <Text size="sm" c="dimmed">
        {t('alerts.editHint')}
      </Text>
      <Textarea
        label={t('alerts.editLabel')}
        placeholder={EXAMPLE}
        rows={8}
        value={text}
        onChange={(event) => setText(event.currentTarget.value)}
        styles={{ input: { fontFamily: 'monospace' } }}
        data-testid="alert-webhooks-input"
      />
      <Group justify="flex-end">
        <Button onClick={() => save.mutate()} loading={save.isPending} disabled={text.trim() === ''}>
          {t('alerts.save')}
        </Button>
      </Group>
    </Stack>
  );
};
