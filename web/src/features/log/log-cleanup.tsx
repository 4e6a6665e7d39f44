import { Button, Popover, Stack, Text, TextInput } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { BusinessError } from '../../lib/api-client.js';
import { handleError } from '../../lib/error-handler.js';
import { showError, showSuccess } from '../../lib/toast.js';
import { deleteLogsBefore } from './log-api.js';
import { DEFAULT_CLEANUP_AGE_SECONDS, fromLocalInput, toLocalInput } from './log-filter-model.js';

/** Admin: delete the logs older than a date (default 30 days ago). */
export const LogCleanup = () => {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [opened, setOpened] = useState(false);
  const [cutoff, setCutoff] = useState(() =>
    toLocalInput(Math.floor(Date.now() / 1000) - DEFAULT_CLEANUP_AGE_SECONDS),
  );
  const cleanup = useMutation({
    mutationFn: () => deleteLogsBefore(fromLocalInput(cutoff)),
    meta: { silent: true },
    onSuccess: async (count) => {
      showSuccess(t('log.cleared', { count }));
      setOpened(false);
      await queryClient.invalidateQueries({ queryKey: ['logs'] });
    },
    onError: (error) => {
      if (error instanceof BusinessError) showError(t('log.cleanupFailed', { message: error.message }));
      else handleError(error);
    },
  });
  return (
    <Popover opened={opened} onChange={setOpened} withArrow position="bottom-end" shadow="md">
      <Popover.Target>
        <Button
          variant="light"
          color="red"
          leftSection={<IconTrash size={16} />}
          onClick={() => setOpened((open) => !open)}
          data-testid="log-cleanup"
        >
          {t('log.cleanup')}
        </Button>
      </Popover.Target>
      <Popover.Dropdown maw={300}>
        <Stack gap="xs">
          <Text size="sm">{t('log.cleanupHint')}</Text>
          <TextInput
            type="datetime-local"
            value={cutoff}
            onChange={(event) => setCutoff(event.currentTarget.value)}
            aria-label={t('log.cleanupBefore')}
          />
          <Button
            color="red"
            size="xs"
            loading={cleanup.isPending}
            disabled={cutoff === ''}
            onClick={() => cleanup.mutate()}
            data-testid="log-cleanup-confirm"
          >
            {t('log.cleanupConfirm')}
          </Button>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
};
