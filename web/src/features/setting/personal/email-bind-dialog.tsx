import { Button, Modal, Stack, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TurnstileWidget } from '../../../components/turnstile-widget.js';
import { useStatus } from '../../../lib/status.js';
import { showSuccess, showWarning } from '../../../lib/toast.js';
import { useCountdown } from '../../../lib/use-countdown.js';
import { bindEmail, sendVerificationCode } from './personal-api.js';

/** Email binding (spec §2, §5): email, get code (30 s countdown, human check), code, bind. */
export const EmailBindDialog = ({
  opened,
  onClose,
  onBound,
}: {
  opened: boolean;
  onClose: () => void;
  onBound: () => Promise<void>;
}) => {
  const { t } = useTranslation();
  const status = useStatus();
  const countdown = useCountdown();
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [turnstileToken, setTurnstileToken] = useState('');
  const turnstileEnabled = status?.turnstile_check ?? false;
  const send = useMutation({
    mutationFn: () => sendVerificationCode(email.trim(), turnstileToken),
    onMutate: countdown.start,
    onSuccess: () => showSuccess(t('auth.codeSent')),
  });
  const bind = useMutation({
    mutationFn: () => bindEmail(email.trim(), code.trim()),
    onSuccess: async () => {
      showSuccess(t('setting.binding.emailBound'));
      onClose();
      await onBound();
    },
  });
  return (
    <Modal opened={opened} onClose={onClose} title={t('setting.binding.email')} centered>
      <Stack>
        <TextInput
          label={t('auth.email')}
          type="email"
          value={email}
          onChange={(event) => setEmail(event.currentTarget.value)}
          rightSectionWidth={120}
          rightSection={
            <Button
              size="compact-sm"
              variant="light"
              disabled={countdown.active}
              loading={send.isPending}
              onClick={() => {
                if (email.trim() === '') return;
                if (turnstileEnabled && turnstileToken === '') {
                  showWarning(t('auth.validation.turnstilePending'));
                  return;
                }
                send.mutate();
              }}
            >
              {countdown.active ? t('auth.resendIn', { seconds: countdown.remaining }) : t('auth.getCode')}
            </Button>
          }
        />
        <TextInput
          label={t('auth.verificationCode')}
          value={code}
          onChange={(event) => setCode(event.currentTarget.value)}
        />
        {turnstileEnabled && status && (
          <TurnstileWidget siteKey={status.turnstile_site_key} onVerify={setTurnstileToken} />
        )}
        <Button loading={bind.isPending} onClick={() => (code.trim() === '' ? undefined : bind.mutate())}>
          {t('setting.binding.bind')}
        </Button>
      </Stack>
    </Modal>
  );
};
