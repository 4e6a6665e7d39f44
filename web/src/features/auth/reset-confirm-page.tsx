import { Button, CopyButton, Stack, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { copyText } from '../../lib/clipboard.js';
import { showSuccess } from '../../lib/toast.js';
import { useCountdown } from '../../lib/use-countdown.js';
import { confirmPasswordReset } from './auth-api.js';
import { AuthCard } from './auth-card.js';

/**
 * Password reset confirmation (spec §2): email and token come from the link; the server answers with
 * the new password, which is shown (and copied when the browser allows). The button then waits 30 s.
 */
export const ResetConfirmPage = () => {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const email = params.get('email') ?? '';
  const token = params.get('token') ?? '';
  const countdown = useCountdown();
  const confirm = useMutation({
    mutationFn: () => confirmPasswordReset(email, token),
    onMutate: countdown.start,
    onSuccess: async (password) => {
      const copied = await copyText(password);
      showSuccess(copied ? t('auth.resetDoneCopied') : t('auth.resetDone'));
    },
  });
  return (
    <AuthCard title={t('auth.resetConfirmTitle')} testId="reset-confirm-page">
      <Stack gap="sm">
        <TextInput label={t('auth.email')} value={email} readOnly />
        {confirm.data !== undefined && (
          <TextInput
            label={t('auth.newPassword')}
            value={confirm.data}
            readOnly
            data-testid="new-password"
            rightSectionWidth={80}
            rightSection={
              <CopyButton value={confirm.data}>
                {({ copied, copy }) => (
                  <Button size="compact-xs" variant="light" onClick={copy}>
                    {copied ? t('common.copied') : t('common.copy')}
                  </Button>
                )}
              </CopyButton>
            }
          />
        )}
        <Button
          fullWidth
          disabled={countdown.active || email === '' || token === ''}
          loading={confirm.isPending}
          onClick={() => confirm.mutate()}
          data-testid="reset-confirm"
        >
          {confirm.isSuccess ? t('auth.resetDone') : t('auth.confirmReset')}
          {countdown.active ? ` (${countdown.remaining})` : ''}
        </Button>
      </Stack>
    </AuthCard>
  );
};
