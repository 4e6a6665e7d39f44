import { Anchor, Button, Stack, Text, TextInput } from '@mantine/core';
import type { SignInChallenge } from '@sluice/contract/schemas/two-factor';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { IconFingerprint } from '@tabler/icons-react';
import { signInWithPasskey } from '../../lib/passkey.js';
import type { StoredUser } from '../../lib/storage.js';
import { completeSecondFactor } from './auth-api.js';

/**
 * The second step of a sign-in: the 6-digit code of the authenticator app or a recovery code, or a
 * passkey of the user (whichever the user has). A
 * wrong code says so (five lock two-factor sign-in for 15 minutes, the server's message); "sign in
 * again" goes back to the first step.
 */
export const SecondFactorForm = ({
  challenge,
  onSignedIn,
  onRestart,
}: {
  challenge: SignInChallenge;
  onSignedIn: (user: StoredUser) => Promise<void>;
  onRestart: () => void;
}) => {
  const { t } = useTranslation();
  const [code, setCode] = useState('');
  const submit = useMutation({ mutationFn: completeSecondFactor, onSuccess: onSignedIn });
  const passkey = useMutation({ mutationFn: signInWithPasskey, onSuccess: onSignedIn });
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (code.trim() !== '') submit.mutate(code.trim());
      }}
      data-testid="second-factor"
    >
      <Stack gap="sm">
        <Text size="sm">{t('twoFactor.signIn.prompt')}</Text>
        {challenge.totp && (
          <TextInput
            label={t('twoFactor.signIn.code')}
            description={t('twoFactor.signIn.recoveryHint')}
            value={code}
            onChange={(event) => setCode(event.currentTarget.value)}
            autoComplete="one-time-code"
            autoFocus
            name="code"
            data-testid="second-factor-code"
          />
        )}
        {challenge.totp && (
          <Button type="submit" fullWidth loading={submit.isPending} data-testid="second-factor-submit">
            {t('twoFactor.signIn.submit')}
          </Button>
        )}
        {challenge.passkey && (
          <Button
            variant={challenge.totp ? 'default' : 'filled'}
            fullWidth
            leftSection={<IconFingerprint size={18} />}
            loading={passkey.isPending}
            onClick={() => passkey.mutate()}
            data-testid="second-factor-passkey"
          >
            {t('passkey.useAsSecondFactor')}
          </Button>
        )}
        <Anchor
          component="button"
          type="button"
          size="sm"
          onClick={onRestart}
          data-testid="second-factor-restart"
        >
          {t('twoFactor.signIn.restart')}
        </Anchor>
      </Stack>
    </form>
  );
};
