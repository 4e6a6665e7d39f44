import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ConfirmButton } from '../../components/confirm-button.js';
import { showSuccess } from '../../lib/toast.js';
import { resetTwoFactor } from './user-api.js';

/** DELETE /api/user/:id/2fa: an administrator removes a user's second factors (a lost device). */
export const UserTwoFactorReset = ({ id }: { id: number }) => {
  const { t } = useTranslation();
  const reset = useMutation({
    mutationFn: () => resetTwoFactor(id),
    onSuccess: () => showSuccess(t('twoFactor.resetDone')),
  });
  return (
    <ConfirmButton
      label={t('twoFactor.reset')}
      question={t('twoFactor.resetConfirm')}
      onConfirm={() => reset.mutate()}
      loading={reset.isPending}
      color="orange"
      variant="light"
      data-testid="user-reset-2fa"
    />
  );
};
