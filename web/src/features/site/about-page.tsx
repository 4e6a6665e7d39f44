import { Card, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { ContentView } from '../../components/content-view.js';
import { ListState } from '../../components/list-state.js';
import { api } from '../../lib/api-client.js';

/** About (spec §2): the About option as HTML or Markdown, or a page address in an iframe. */
export const AboutPage = () => {
  const { t } = useTranslation();
  const about = useQuery({ queryKey: ['about'], queryFn: () => api.get('/api/about', z.string()) });
  return (
    <ListState loading={about.isPending} empty={false}>
      {about.data ? (
        <ContentView content={about.data} title={t('nav.about')} />
      ) : (
        <Card data-testid="about-default">
          <Title order={3} mb="xs">
            {t('nav.about')}
          </Title>
          <Text c="dimmed">{t('about.empty')}</Text>
        </Card>
      )}
    </ListState>
  );
};
