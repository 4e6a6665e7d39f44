import { Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmButton } from '../../../components/confirm-button.js';
import { BusinessError } from '../../../lib/api-client.js';
import { handleError } from '../../../lib/error-handler.js';
import { showError, showSuccess } from '../../../lib/toast.js';
import { DEFAULT_CLEANUP_AGE_SECONDS, deleteLogsBefore } from '../options/option-api.js';

const pad = (value: number) => String(value).padStart(2, '0');

/** Epoch seconds as a local `datetime-local` value. */
const toLocalInput = (seconds: number): string => {
  const date = new Date(seconds * 1000);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
};

/** Clear history logs (spec §2, §7): every log before a date, 30 days ago by default. */
export const HistoryCleanupSection = () => {
  const { t } = useTranslation();
  const [cutoff, setCutoff] = useState(() =>
    toLocalInput(Math.floor(Date.now() / 1000) - DEFAULT_CLEANUP_AGE_SECONDS),
  );
  const seconds = Math.floor(new Date(cutoff).getTime() / 1000);
  const cleanup = useMutation({
    mutationFn: () => deleteLogsBefore(seconds),
    meta: { silent: true },
    onSuccess: (count) => {
      showSuccess(t('log.cleared', { count }));
    },
    onError: (error) => {
      if (error instanceof BusinessError) showError(t('log.cleanupFailed', { message: error.message }));
      else handleError(error);
    },
  });
  return (
    <Stack gap="sm" className="option-section" data-testid="section-cleanup">
      <Title order={4}>{t('options.section.cleanup')}</Title>
      <Text size="sm" c="dimmed">
        {t('log.cleanupHint')}
      </Text>
      <Group gap="xs" align="flex-end">
        <TextInput
          type="datetime-local"
          label={t('log.cleanupBefore')}
          value={cutoff}
          onChange={(event) => setCutoff(event.currentTarget.value)}
          data-testid="cleanup-cutoff"
        />
        <ConfirmButton
          variant="light"
          label={t('log.cleanupConfirm')}
          question={t('options.cleanupQuestion')}
          loading={cleanup.isPending}
          disabled={Number.isNaN(seconds) || seconds <= 0}
          onConfirm={() => cleanup.mutate()}
          data-testid="cleanup-submit"
        />
      </Group>
    </Stack>
  );
};
