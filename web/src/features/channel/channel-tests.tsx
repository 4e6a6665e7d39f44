import { Button, Paper, Progress, Stack, Text } from '@mantine/core';
import { IconPlayerPlay } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { showInfo, showSuccess } from '../../lib/toast.js';
import { channelTestProgress, startChannelTests, type TestProgress, type TestScope } from './channel-api.js';

/** How often the progress of a run is read while it runs. */
export const TEST_POLL_MS = 1000;

/**
 * Test all / test disabled (spec §2): starts the background run, then reads
 * /api/channel/test/status every second while it runs; when it ends, the list reloads and a toast
 * gives the counts.
 */
export const useChannelTests = () => {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const progress = useQuery({
    queryKey: ['channel-tests'],
    queryFn: channelTestProgress,
    refetchInterval: (query) => (query.state.data?.running ? TEST_POLL_MS : false),
  });
  // True while a run we saw (or started) has not been seen to end.
  const watching = useRef(false);
  const start = useMutation({
    mutationFn: (scope: TestScope) => startChannelTests(scope),
    onSuccess: async () => {
      watching.current = true;
      showInfo(t('channel.testStarted'));
      await queryClient.invalidateQueries({ queryKey: ['channel-tests'] });
    },
  });
  const data = progress.data;
  const updatedAt = progress.dataUpdatedAt;
  useEffect(() => {
    if (!data) return;
    if (data.running) {
      watching.current = true;
      return;
    }
    if (!watching.current) return;
    watching.current = false;
    showSuccess(t('channel.testFinished', { done: data.done, failed: data.failed }));
    void queryClient.invalidateQueries({ queryKey: ['channels'] });
  }, [data, updatedAt, queryClient, t]);
  return { progress: data, start: (scope: TestScope) => start.mutate(scope), starting: start.isPending };
};

/** The two buttons; both wait while a run is under way. */
export const ChannelTestButtons = ({
  running,
  starting,
  onStart,
}: {
  running: boolean;
  starting: boolean;
  onStart: (scope: TestScope) => void;
}) => {
  const { t } = useTranslation();
  return (
    <>
      <Button
        variant="light"
        leftSection={<IconPlayerPlay size={16} />}
        loading={running || starting}
        onClick={() => onStart('all')}
        data-testid="channel-test-all"
      >
        {t('channel.testAll')}
      </Button>
      <Button
        variant="light"
        color="orange"
        loading={running || starting}
        onClick={() => onStart('disabled')}
        data-testid="channel-test-disabled"
      >
        {t('channel.testDisabled')}
      </Button>
    </>
  );
};

/** The progress of a running test: done of total, and how many failed. */
export const ChannelTestProgress = ({ progress }: { progress: TestProgress | undefined }) => {
  const { t } = useTranslation();
  if (!progress?.running) return null;
  const percent = progress.total > 0 ? (progress.done / progress.total) * 100 : 0;
  return (
    <Paper withBorder p="sm" data-testid="channel-test-progress">
      <Stack gap={6}>
        <Text size="sm">
          {t('channel.testRunning', { done: progress.done, total: progress.total, failed: progress.failed })}
        </Text>
        <Progress value={percent} animated striped aria-label={t('channel.testAll')} />
      </Stack>
    </Paper>
  );
};
