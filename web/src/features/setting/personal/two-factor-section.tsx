import { Alert, Badge, Button, Group, Modal, Stack, Text, Title } from '@mantine/core';
import { IconShieldLock } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '../../../lib/toast.js';
import { PromptDialog } from './prompt-dialog.js';
import { RecoveryCodesView } from './recovery-codes-view.js';
import { TotpSetupDialog } from './totp-setup-dialog.js';
import { disableTotp, getTwoFactorStatus, renewRecoveryCodes } from './two-factor-api.js';

type Dialog = 'setup' | 'disable' | 'renew' | undefined;

/**
 * Two-factor authentication in the personal settings: whether TOTP is on and how many recovery
 * codes are left; turn it on (QR code, first code, recovery codes), turn it off or make new recovery
 * codes (each for a current code). An administrator who must have it sees why.
 */
export const TwoFactorSection = () => {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const status = useQuery({ queryKey: ['2fa', 'status'], queryFn: getTwoFactorStatus });
  const [dialog, setDialog] = useState<Dialog>();
  const [renewed, setRenewed] = useState<string[]>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['2fa', 'status'] });
  const disable = useMutation({
    mutationFn: disableTotp,
    onSuccess: async () => {
      setDialog(undefined);
      showSuccess(t('twoFactor.turnedOff'));
      await refresh();
    },
  });
  const renew = useMutation({
    mutationFn: renewRecoveryCodes,
    onSuccess: async (codes) => {
      setDialog(undefined);
      setRenewed(codes);
      await refresh();
    },
  });
  const on = status.data?.totp === true;

  return (
    <Stack gap="sm" data-testid="two-factor">
      <Group gap="sm">
        <IconShieldLock size={20} />
        <Title order={4}>{t('twoFactor.title')}</Title>
        {status.data && (
          <Badge color={on ? 'green' : 'gray'} variant="light" data-testid="two-factor-state">
            {on ? t('twoFactor.on') : t('twoFactor.off')}
          </Badge>
        )}
      </Group>
      <Text size="sm" c="dimmed">
        {t('twoFactor.description')}
      </Text>
      {status.data?.required && !on && (
        <Alert color="orange" variant="light" data-testid="two-factor-required">
          {t('twoFactor.required')}
        </Alert>
      )}
      {on && (
        <Text size="sm" data-testid="two-factor-codes-left">
          {t('twoFactor.recoveryLeft', { count: status.data?.recovery_codes ?? 0 })}
        </Text>
      )}
      <Group gap="sm">
        {status.data && !on && (
          <Button onClick={() => setDialog('setup')} data-testid="two-factor-on">
            {t('twoFactor.turnOn')}
          </Button>
        )}
        {on && (
          <>
            <Button variant="light" onClick={() => setDialog('renew')} data-testid="two-factor-renew">
              {t('twoFactor.renewCodes')}
            </Button>
            <Button
              color="red"
              variant="light"
              onClick={() => setDialog('disable')}
              data-testid="two-factor-off"
            >
              {t('twoFactor.turnOff')}
            </Button>
          </>
        )}
      </Group>
      {dialog === 'setup' && (
        <TotpSetupDialog
          onClose={(changed) => {
            setDialog(undefined);
            if (changed) {
              showSuccess(t('twoFactor.turnedOn'));
              void refresh();
            }
          }}
        />
      )}
      {(dialog === 'disable' || dialog === 'renew') && (
        <PromptDialog
          title={dialog === 'disable' ? t('twoFactor.turnOff') : t('twoFactor.renewCodes')}
          hint={t('twoFactor.confirmCodeHint')}
          label={t('twoFactor.code')}
          oneTimeCode
          testId="code-prompt"
          loading={disable.isPending || renew.isPending}
          onSubmit={(code) => (dialog === 'disable' ? disable.mutate(code) : renew.mutate(code))}
          onClose={() => setDialog(undefined)}
        />
      )}
      <Modal
        opened={renewed !== undefined}
        onClose={() => setRenewed(undefined)}
        title={t('twoFactor.codesTitle')}
      >
        {renewed && <RecoveryCodesView codes={renewed} onDone={() => setRenewed(undefined)} />}
      </Modal>
    </Stack>
  );
};
