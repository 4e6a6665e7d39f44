import { Button, Stack, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TurnstileWidget } from '../../components/turnstile-widget.js';
import { useStatus } from '../../lib/status.js';
import { showSuccess, showWarning } from '../../lib/toast.js';
import { useCountdown } from '../../lib/use-countdown.js';
import { requestPasswordReset } from './auth-api.js';
import { AuthCard } from './auth-card.js';

/** Password reset request (spec §2): an email and a button, disabled 30 s after a click. */
export const ResetRequestPage = () => {
  const { t } = useTranslation();
  const status = useStatus();
  const countdown = useCountdown();
  const [email, setEmail] = useState('');
  const [turnstileToken, setTurnstileToken] = useState('');
  const turnstileEnabled = status?.turnstile_check ?? false;
  const send = useMutation({
    mutationFn: () => requestPasswordReset(email.trim(), turnstileToken),
    onMutate: countdown.start,
    onSuccess: () => {
      showSuccess(t('auth.resetMailSent'));
      setEmail('');
    },
  });
  return (
    <AuthCard title={t('auth.resetTitle')} testId="reset-page">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (email.trim() === '') return;
          if (turnstileEnabled && turnstileToken === '') {
            showWarning(t('auth.validation.turnstileChecking'));
            return;
          }
          send.mutate();
        }}
      >
        <Stack gap="sm">
          <TextInput
            label={t('auth.email')}
            placeholder={t('auth.emailPlaceholder')}
            type="email"
            required
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
          />
          {turnstileEnabled && status && (
            <TurnstileWidget siteKey={status.turnstile_site_key} onVerify={setTurnstileToken} />
          )}
          <Button
            type="submit"
            fullWidth
            disabled={countdown.active}
            loading={send.isPending}
            data-testid="reset-submit"
          >
            {countdown.active ? t('auth.retryIn', { seconds: countdown.remaining }) : t('auth.sendResetMail')}
          </Button>
        </Stack>
      </form>
    </AuthCard>
  );
};
