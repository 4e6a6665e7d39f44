import { Card, Tabs, Text } from '@mantine/core';
import { lazy, Suspense, type ComponentType } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { ListState } from '../../components/list-state.js';
import { useSession } from '../../lib/session.js';
import { PersonalSettings } from './personal/personal-settings.js';

const OperationSettings = lazy(async () => ({
  default: (await import('./operation/operation-settings.js')).OperationSettings,
}));
const SystemSettings = lazy(async () => ({
  default: (await import('./system/system-settings.js')).SystemSettings,
}));
const OtherSettings = lazy(async () => ({
  default: (await import('./other/other-settings.js')).OtherSettings,
}));

type TabKey = 'personal' | 'operation' | 'system' | 'other';

/**
 * The tabs of /setting (spec §2, §6): personal for everyone; operation, system and other for
 * administrators. An administrator sees there only the options they may change; the rest are root's
 * (`@sluice/contract/option-access`), and a note says so.
 */
const TABS: readonly { key: TabKey; adminOnly: boolean; Component: ComponentType }[] = [
  { key: 'personal', adminOnly: false, Component: PersonalSettings },
  { key: 'operation', adminOnly: true, Component: OperationSettings },
  { key: 'system', adminOnly: true, Component: SystemSettings },
  { key: 'other', adminOnly: true, Component: OtherSettings },
];

const Loading = () => (
  <ListState loading empty={false}>
    {null}
  </ListState>
);

/** Settings: the tab is kept in `?tab=` so a reload stays on it. The admin tabs load lazily. */
export const SettingPage = () => {
  const { t } = useTranslation();
  const { isAdmin, isRoot } = useSession();
  const [params, setParams] = useSearchParams();
  const tabs = TABS.filter((tab) => !tab.adminOnly || isAdmin);
  const active = tabs.find((tab) => tab.key === params.get('tab'))?.key ?? 'personal';
  return (
    <Card p={{ base: 'xs', xs: 'lg' }} data-testid="setting-page">
      <Tabs
        value={active}
        onChange={(value) =>
          setParams(value && value !== 'personal' ? { tab: value } : {}, { replace: true })
        }
        keepMounted={false}
      >
        <Tabs.List mb="md">
          {tabs.map((tab) => (
            <Tabs.Tab key={tab.key} value={tab.key} data-testid={`setting-tab-${tab.key}`}>
              {t(`setting.tabs.${tab.key}`)}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {isAdmin && !isRoot && active !== 'personal' && (
          <Text size="sm" c="dimmed" mb="md" data-testid="setting-root-only">
            {t('options.rootOnly')}
          </Text>
        )}
        {tabs.map((tab) => (
          <Tabs.Panel key={tab.key} value={tab.key}>
            <Suspense fallback={<Loading />}>
              <tab.Component />
            </Suspense>
          </Tabs.Panel>
        ))}
      </Tabs>
    </Card>
  );
};
