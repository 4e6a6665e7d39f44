import { Button, Group, SimpleGrid, TextInput } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '../../lib/toast.js';
import {
  ALERT_SETTING_KEYS,
  getAlertSettings,
  saveAlertSettings,
  type AlertSettingKey,
  type AlertSettings,
} from './alerts-api.js';

const LABELS: Readonly<Record<AlertSettingKey, 'cooldown' | 'attempts' | 'retryBase'>> = {
  AlertCooldownMinutes: 'cooldown',
  AlertWebhookAttempts: 'attempts',
  AlertRetryBaseSeconds: 'retryBase',
};

const SettingsForm = ({ initial }: { initial: AlertSettings }) => {
  const { t } = useTranslation();
  const [values, setValues] = useState<AlertSettings>(initial);
  const save = useMutation({
    mutationFn: () => saveAlertSettings(values),
    onSuccess: () => showSuccess(t('alerts.settingsSaved')),
  });
  return (
    <>
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        {ALERT_SETTING_KEYS.map((key) => (
          <TextInput
            key={key}
            label={t(`alerts.settings.${LABELS[key]}`)}
            inputMode="decimal"
            value={values[key]}
            onChange={(event) => {
              const value = event.currentTarget.value;
              setValues((current) => ({ ...current, [key]: value }));
            }}
            data-testid={`alert-setting-${key}`}
          />
        ))}
      </SimpleGrid>
      <Group justify="flex-end">
        <Button onClick={() => save.mutate()} loading={save.isPending} data-testid="alert-settings-save">
          {t('alerts.saveSettings')}
        </Button>
      </Group>
    </>
  );
};

/** The cooldown per kind and object, the attempts of a delivery and the first wait between them. */
export const AlertSettingsSection = () => {
  const settings = useQuery({ queryKey: ['alert-settings'], queryFn: getAlertSettings });
  return settings.data ? <SettingsForm initial={settings.data} /> : null;
};
