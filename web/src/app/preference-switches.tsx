import { ActionIcon, Menu, Tooltip, useComputedColorScheme, useMantineColorScheme } from '@mantine/core';
import { IconLanguage, IconMoon, IconSun } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { setLanguage } from '../i18n/i18n.js';
import { LANGUAGES } from '../lib/storage.js';

const LANGUAGE_LABELS = { en: 'English', zh: '中文' } as const;

/** The language menu: English or Chinese, remembered under `language`. */
export const LanguageMenu = () => {
  const { t, i18n } = useTranslation();
  const language = i18n.language === 'zh' ? 'zh' : 'en';
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Tooltip label={t('header.language')}>
          <ActionIcon
            variant="subtle"
            size="lg"
            aria-label={t('header.language')}
            data-testid="language-switch"
          >
            <IconLanguage size={20} />
          </ActionIcon>
        </Tooltip>
      </Menu.Target>
      <Menu.Dropdown>
        {LANGUAGES.map((value) => (
          <Menu.Item
            key={value}
            onClick={() => setLanguage(value)}
            fw={value === language ? 700 : undefined}
            data-testid={`language-${value}`}
          >
            {LANGUAGE_LABELS[value]}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
};

/** Light / dark switch, remembered under `color_scheme`. */
export const ThemeToggle = () => {
  const { t } = useTranslation();
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme('light');
  return (
    <Tooltip label={t('header.toggleTheme')}>
      <ActionIcon
        variant="subtle"
        size="lg"
        aria-label={t('header.toggleTheme')}
        onClick={() => setColorScheme(scheme === 'dark' ? 'light' : 'dark')}
        data-testid="theme-switch"
      >
        {scheme === 'dark' ? <IconSun size={20} /> : <IconMoon size={20} />}
      </ActionIcon>
    </Tooltip>
  );
};
