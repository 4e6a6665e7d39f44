import {
  Alert,
  Button,
  Group,
  NumberInput,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { QUOTA_ALERT_FIELDS, type QuotaAlertField } from '@sluice/contract/schemas/quota-alerts';
import type { User } from '@sluice/contract/schemas/user';
import { IconBell } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../lib/api-client.js';
import { useQuotaFormatter } from '../../../lib/format.js';
import { showSuccess } from '../../../lib/toast.js';
import { getSelf } from './personal-api.js';
import {
  isValidChoice,
  toQuotaAlertForm,
  toQuotaAlertRequest,
  type AlertChoice,
  type AlertMode,
  type QuotaAlertForm,
} from './quota-alert-form.js';

const MODES: readonly AlertMode[] = ['site', 'own', 'off'];

/** One alert: the site's threshold, the user's own (in quota units, the amount shown), or off. */
const AlertChoiceField = ({
  field,
  choice,
  onChange,
}: {
  field: QuotaAlertField;
  choice: AlertChoice;
  onChange: (next: AlertChoice) => void;
}) => {
  const { t } = useTranslation();
  const formatQuota = useQuotaFormatter();
  const { amount } = choice;
  return (
    <Stack gap={6} data-testid={`alert-${field}`}>
      <Text size="sm" fw={500}>
        {t(`alerts.mine.${field}`)}
      </Text>
      <SegmentedControl
        value={choice.mode}
        onChange={(mode) => onChange({ ...choice, mode: mode })}
        data={MODES.map((mode) => ({ value: mode, label: t(`alerts.mine.modes.${mode}`) }))}
        data-testid={`alert-${field}-mode`}
      />
      {choice.mode === 'own' && (
        <NumberInput
          aria-label={t(`alerts.mine.${field}`)}
          description={
            typeof amount === 'number' && amount > 0
              ? t('alerts.mine.below', { amount: formatQuota(amount) })
              : undefined
          }
          error={isValidChoice(choice) ? undefined : t('alerts.mine.invalid')}
          placeholder={t('alerts.mine.quotaUnits')}
          value={amount}
          onChange={(next) =>
            onChange({ ...choice, amount: typeof next === 'number' ? next : next === '' ? '' : Number(next) })
          }
          min={1}
          step={1}
          allowDecimal={false}
          thousandSeparator=","
          name={field}
        />
      )}
    </Stack>
  );
};

const QuotaAlertEditor = ({ self }: { self: User }) => {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [form, setForm] = useState<QuotaAlertForm>(() => toQuotaAlertForm(self));
  const save = useMutation({
    mutationFn: (next: QuotaAlertForm) => api.send('PUT', '/api/user/self', toQuotaAlertRequest(next)),
    onSuccess: async () => {
      showSuccess(t('alerts.mine.saved'));
      await queryClient.invalidateQueries({ queryKey: ['self'] });
    },
  });
  const valid = QUOTA_ALERT_FIELDS.every((field) => isValidChoice(form[field]));
  return (
    <Stack gap="sm">
      {self.email.trim() === '' && (
        <Alert color="yellow" data-testid="alert-no-email">
          {t('alerts.mine.noEmail')}
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="lg">
        {QUOTA_ALERT_FIELDS.map((field) => (
          <AlertChoiceField
            key={field}
            field={field}
            choice={form[field]}
            onChange={(choice) => setForm((current) => ({ ...current, [field]: choice }))}
          />
        ))}
      </SimpleGrid>
      <Group>
        <Button
          onClick={() => save.mutate(form)}
          disabled={!valid}
          loading={save.isPending}
          data-testid="alert-save"
        >
          {t('alerts.mine.save')}
        </Button>
      </Group>
    </Stack>
  );
};

/**
 * The user's own quota alerts in the personal settings: when their balance, or a key of theirs with
 * a limited quota, falls below a threshold, they are mailed (and the operator's webhooks hear of it).
 * Each is the site's threshold, the user's own, or off (PUT /api/user/self; null, a number, 0).
 */
export const QuotaAlertSection = () => {
  const { t } = useTranslation();
  const self = useQuery({ queryKey: ['self'], queryFn: getSelf });
  return (
    <Stack gap="sm" data-testid="quota-alerts">
      <Group gap="sm">
        <IconBell size={20} />
        <Title order={4}>{t('alerts.mine.title')}</Title>
      </Group>
      <Text size="sm" c="dimmed">
        {t('alerts.mine.description')}
      </Text>
      {self.data && (
        // A new editor when the stored thresholds change (after a save), not on every refetch.
        <QuotaAlertEditor
          key={`${self.data.quota_alert_threshold}:${self.data.token_alert_threshold}`}
          self={self.data}
        />
      )}
    </Stack>
  );
};
