import { Alert, Anchor, Button, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { isSignedOutState, originOf, signIn, signOut } from '../../lib/session.js';
import { useBranding } from '../../lib/status.js';
import { showSuccess, showWarning } from '../../lib/toast.js';
import { isDefaultRootLogin, login } from './auth-api.js';
import { AuthCard } from './auth-card.js';
import { OAuthButtons } from './oauth-buttons.js';

/**
 * Login (spec §2, §4): username or email and password. A normal login goes to the remembered origin
 * or /token; the default root credentials go to /user/edit with a warning. `?expired=true` (after a
 * 401) shows that the session ended.
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

  const submit = useMutation({
    mutationFn: (input: { username: string; password: string }) => login(input.username, input.password),
    onSuccess: async (user, input) => {
      signIn(user);
      if (isDefaultRootLogin(input.username, input.password)) {
        showWarning(t('auth.changeDefaultPassword'));
        await navigate('/user/edit');
        return;
      }
      showSuccess(t('auth.loginSuccess'));
      await navigate(originOf(location.state) ?? '/token');
    },
  });

  return (
    <AuthCard title={t('auth.loginTitle', { name: systemName })} testId="login-page">
      {expired && (
        <Alert color="red" icon={<IconAlertCircle size={18} />} data-testid="login-expired">
          {t('auth.expired')}
        </Alert>
      )}
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
        </Stack>
      </form>
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
