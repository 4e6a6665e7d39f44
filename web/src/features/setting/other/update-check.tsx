import { Anchor, Button, Group, Modal, ScrollArea, Stack, Text } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../lib/status.js';
import { showError, showSuccess } from '../../../lib/toast.js';
import { latestRelease, type Release } from '../options/option-api.js';

const RELEASES_PAGE = 'https://github.com/songquanpeng/one-api/releases/latest';
const TIMEOUT_MS = 10_000;

/**
 * Check for update (spec §7): asks the open-source project's public release feed for the latest
 * release; the same tag as this version is 'already the latest version', another tag opens a dialog
 * with its notes (shown as text). Offline, or when the feed refuses, a clear message says so.
 */
export const UpdateCheck = () => {
  const { t } = useTranslation();
  const version = useStatus()?.version ?? '';
  const [release, setRelease] = useState<Release | undefined>();
  const check = useMutation({
    mutationFn: () => latestRelease(AbortSignal.timeout(TIMEOUT_MS)),
    meta: { silent: true },
    onSuccess: (latest) => {
      if (latest.tag_name === version) showSuccess(t('options.update.latest'));
      else setRelease(latest);
    },
    onError: (error) => {
      const message = error instanceof Error && error.message !== '' ? error.message : String(error);
      showError(t('options.update.unreachable', { message }));
    },
  });
  return (
    <Group gap="sm">
      <Text size="sm">{t('options.update.current', { version: version || '?' })}</Text>
      <Button
        size="xs"
        variant="light"
        leftSection={<IconRefresh size={14} />}
        loading={check.isPending}
        onClick={() => check.mutate()}
        data-testid="check-update"
      >
        {t('options.update.check')}
      </Button>
      <Modal
        opened={release !== undefined}
        onClose={() => setRelease(undefined)}
        title={t('options.update.newVersion', { tag: release?.tag_name ?? '' })}
        centered
        size="lg"
      >
        <Stack gap="sm">
          <ScrollArea.Autosize mah={360}>
            <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
              {release?.body || t('options.update.noNotes')}
            </Text>
          </ScrollArea.Autosize>
          <Group justify="flex-end">
            <Anchor href={release?.html_url ?? RELEASES_PAGE} target="_blank" rel="noreferrer">
              {t('options.update.open')}
            </Anchor>
          </Group>
        </Stack>
      </Modal>
    </Group>
  );
};
