import { Anchor, Badge, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { z } from 'zod';
import { ContentView } from '../../components/content-view.js';
import { ListState } from '../../components/list-state.js';
import { api } from '../../lib/api-client.js';
import { formatTimestamp } from '../../lib/format.js';
import { renderMarkdown } from '../../lib/markdown.js';
import { useSession } from '../../lib/session.js';
import { useBranding, useStatus } from '../../lib/status.js';
import { readStorage, writeStorage } from '../../lib/storage.js';
import { showNotice } from '../../lib/toast.js';

/** Shows the admin's notice once per text: a persistent HTML toast, remembered under `notice`. */
const useNotice = () => {
  const notice = useQuery({ queryKey: ['notice'], queryFn: () => api.get('/api/notice', z.string()) });
  useEffect(() => {
    const text = notice.data;
    if (text === undefined || text === '' || text === readStorage('notice')) return;
    writeStorage('notice', text);
    showNotice(renderMarkdown(text), true);
  }, [notice.data]);
};

const Flag = ({ label, enabled }: { label: string; enabled: boolean | undefined }) => {
  const { t } = useTranslation();
  return (
    <Group justify="space-between" wrap="nowrap">
      <Text size="sm">{label}</Text>
      <Badge color={enabled ? 'teal' : 'gray'} variant="light">
        {enabled ? t('common.enabled') : t('common.disabled')}
      </Badge>
    </Group>
  );
};

/** The built-in home when no home page content is configured: a welcome and the system status. */
const DefaultHome = () => {
  const { t } = useTranslation();
  const { user } = useSession();
  const { systemName } = useBranding();
  const status = useStatus();
  return (
    <Stack data-testid="home-default">
      <Card>
        <Title order={2} mb="xs">
          {t('home.welcome', { name: systemName })}
        </Title>
        <Text c="dimmed">{t('home.intro', { name: systemName })}</Text>
        {!user && (
          <Text mt="sm">
            <Trans
              i18nKey="home.loginHint"
              components={{
                login: <Anchor component={Link} to="/login" />,
                register: <Anchor component={Link} to="/register" />,
              }}
            />
          </Text>
        )}
      </Card>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Card>
          <Title order={4} mb="sm">
            {t('home.systemInfo')}
          </Title>
          <Stack gap={6}>
            <Group justify="space-between">
              <Text size="sm">{t('home.name')}</Text>
              <Text size="sm" fw={500}>
                {systemName}
              </Text>
            </Group>
            <Group justify="space-between">
              <Text size="sm">{t('home.version')}</Text>
              <Text size="sm" fw={500}>
                {status?.version ?? '—'}
              </Text>
            </Group>
            <Group justify="space-between">
              <Text size="sm">{t('home.startTime')}</Text>
              <Text size="sm" fw={500}>
                {status ? formatTimestamp(status.start_time) : '—'}
              </Text>
            </Group>
          </Stack>
        </Card>
        <Card>
          <Title order={4} mb="sm">
            {t('home.systemConfig')}
          </Title>
          <Stack gap={6}>
            <Flag label={t('home.emailVerification')} enabled={status?.email_verification} />
            <Flag label={t('home.githubLogin')} enabled={status?.github_oauth} />
            <Flag label={t('home.wechatLogin')} enabled={status?.wechat_login} />
            <Flag label={t('home.turnstile')} enabled={status?.turnstile_check} />
          </Stack>
        </Card>
      </SimpleGrid>
    </Stack>
  );
};

/** Home (spec §2): the configured content (HTML, Markdown or a page address), else the default. */
export const HomePage = () => {
  const { t } = useTranslation();
  useNotice();
  const content = useQuery({
    queryKey: ['home_page_content'],
    queryFn: () => api.get('/api/home_page_content', z.string()),
  });
  return (
    <ListState loading={content.isPending} empty={false}>
      {content.data ? <ContentView content={content.data} title={t('nav.home')} /> : <DefaultHome />}
    </ListState>
  );
};
