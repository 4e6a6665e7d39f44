import { Alert, Anchor, Button, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertCircle, IconFingerprint } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { isAdminRole } from '@sluice/contract/roles';
import { isSignedOutState, originOf, signIn, signOut } from '../../lib/session.js';
import { passkeysSupported, signInWithPasskey } from '../../lib/passkey.js';
import type { StoredUser } from '../../lib/storage.js';
import { useBranding } from '../../lib/status.js';
import { showSuccess, showWarning } from '../../lib/toast.js';
import { isChallenge, isDefaultRootLogin, login, mustSetUpSecondFactor, secondFactorOf } from './auth-api.js';
import { AuthCard } from './auth-card.js';
import { OAuthButtons } from './oauth-buttons.js';
import { SecondFactorForm } from './second-factor-form.js';

/**
 * Login (spec §2, §4): username or email and password, then the second factor of a user who has one
 * (also reached from a third-party sign-in, by the router state). A normal login goes to the
 * remembered origin or /token; the default root credentials go to /user/edit with a warning, an
 * administrator who must still set up a second factor to /setting. `?expired=true` (where the error
 * handler sends a 401) shows that the session ended and forgets the stored user: the handler leaves
 * it to this page, so that no guard sees the user gone before the browser is here.
 */
export const LoginPage = () => {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const [params] = useSearchParams();
  const { systemName } = useBranding();
  const expired = params.get('expired') === 'true';
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');

  const signedOut = isSignedOutState(location.state);
  useEffect(() => {
    if (expired || signedOut) signOut();
  }, [expired, signedOut]);

  const [challenge, setChallenge] = useState(() => secondFactorOf(location.state));
  const [defaultRoot, setDefaultRoot] = useState(false);

  const signedIn = async (user: StoredUser, changePassword: boolean) => {
    signIn(user);
    if (changePassword) {
      showWarning(t('auth.changeDefaultPassword'));
      await navigate('/user/edit');
      return;
    }
    if (isAdminRole(user.role) && (await mustSetUpSecondFactor())) {
      showWarning(t('twoFactor.requiredNotice'));
      await navigate('/setting');
      return;
    }
    showSuccess(t('auth.loginSuccess'));
    await navigate(originOf(location.state) ?? '/token');
  };

  const submit = useMutation({
    mutationFn: (input: { username: string; password: string }) => login(input.username, input.password),
    onSuccess: async (answer, input) => {
      const changePassword = isDefaultRootLogin(input.username, input.password);
      if (!isChallenge(answer)) return signedIn(answer, changePassword);
      setDefaultRoot(changePassword);
      setChallenge(answer);
    },
  });
  const passkey = useMutation({ mutationFn: signInWithPasskey, onSuccess: (user) => signedIn(user, false) });

  return (
    <AuthCard title={t('auth.loginTitle', { name: systemName })} testId="login-page">
      {expired && (
        <Alert color="red" icon={<IconAlertCircle size={18} />} data-testid="login-expired">
          {t('auth.expired')}
        </Alert>
      )}
      {challenge ? (
        <SecondFactorForm
          challenge={challenge}
          onSignedIn={(user) => signedIn(user, defaultRoot)}
          onRestart={() => setChallenge(undefined)}
        />
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (username.trim() === '' || password === '') return;
            submit.mutate({ username: username.trim(), password });
          }}
        >
          <Stack gap="sm">
            <TextInput
              label={t('auth.usernameOrEmail')}
              placeholder={t('auth.usernameOrEmail')}
              value={username}
              onChange={(event) => setUsername(event.currentTarget.value)}
              autoComplete="username"
              required
              name="username"
            />
            <PasswordInput
              label={t('auth.password')}
              placeholder={t('auth.password')}
              value={password}
              onChange={(event) => setPassword(event.currentTarget.value)}
              autoComplete="current-password"
              required
              name="password"
            />
            <Button type="submit" fullWidth loading={submit.isPending} data-testid="login-submit">
              {t('auth.login')}
            </Button>
            {passkeysSupported() && (
              <Button
                variant="default"
                fullWidth
                leftSection={<IconFingerprint size={18} />}
                loading={passkey.isPending}
                onClick={() => passkey.mutate()}
                data-testid="login-passkey"
              >
                {t('passkey.signIn')}
              </Button>
            )}
          </Stack>
        </form>
      )}
      <Group justify="space-between" gap="xs">
        <Text size="sm">
          {t('auth.forgotPassword')}{' '}
          <Anchor component={Link} to="/reset">
            {t('auth.resetLink')}
          </Anchor>
        </Text>
        <Text size="sm">
          {t('auth.noAccount')}{' '}
          <Anchor component={Link} to="/register">
            {t('auth.registerLink')}
          </Anchor>
        </Text>
      </Group>
      <OAuthButtons />
    </AuthCard>
  );
};
