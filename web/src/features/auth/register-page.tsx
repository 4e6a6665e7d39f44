import { Anchor, Button, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { TurnstileWidget } from '../../components/turnstile-widget.js';
import { useBranding, useStatus } from '../../lib/status.js';
import { readStorage, writeStorage } from '../../lib/storage.js';
import { showInfo, showSuccess, showWarning } from '../../lib/toast.js';
import { useCountdown } from '../../lib/use-countdown.js';
import { register, sendVerificationCode } from './auth-api.js';
import { AuthCard } from './auth-card.js';
import { problemSeverity, validateRegistration } from './register-validation.js';

/**
 * Registration (spec §2, §5): username, password twice; with email verification an email, a get-code
 * button (30 s countdown) and the code; the human check when enabled. An invite code from `?aff=` is
 * remembered as `aff` and sent along. Success goes to /login.
 */
export const RegisterPage = () => {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const status = useStatus();
  const { systemName } = useBranding();
  const countdown = useCountdown();
  const [form, setForm] = useState({
    username: '',
    password: '',
    password2: '',
    email: '',
    verificationCode: '',
  });
  const [turnstileToken, setTurnstileToken] = useState('');
  const emailVerification = status?.email_verification ?? false;
  const turnstileEnabled = status?.turnstile_check ?? false;
  const field = (name: keyof typeof form) => ({
    value: form[name],
    onChange: (event: React.ChangeEvent<HTMLInputElement>) => {
      const value = event.currentTarget.value;
      setForm((current) => ({ ...current, [name]: value }));
    },
  });

  useEffect(() => {
    const aff = params.get('aff');
    if (aff) writeStorage('aff', aff);
  }, [params]);

  const sendCode = useMutation({
    mutationFn: () => sendVerificationCode(form.email.trim(), turnstileToken),
    onMutate: countdown.start,
    onSuccess: () => showSuccess(t('auth.codeSent')),
  });

  const submit = useMutation({
    mutationFn: () =>
      register(
        {
          username: form.username.trim(),
          password: form.password,
          password2: form.password2,
          email: form.email.trim(),
          verification_code: form.verificationCode.trim(),
          aff_code: readStorage('aff') ?? '',
        },
        turnstileToken,
      ),
    onSuccess: async () => {
      showSuccess(t('auth.registerSuccess'));
      await navigate('/login');
    },
  });

  const onSubmit = () => {
    const problem = validateRegistration(form, { emailVerification, turnstileEnabled, turnstileToken });
    if (problem) {
      (problemSeverity(problem) === 'warning' ? showWarning : showInfo)(t(problem));
      return;
    }
    submit.mutate();
  };

  const onSendCode = () => {
    if (form.email.trim() === '') return;
    if (turnstileEnabled && turnstileToken === '') {
      showWarning(t('auth.validation.turnstilePending'));
      return;
    }
    sendCode.mutate();
  };

  return (
    <AuthCard title={t('auth.registerTitle', { name: systemName })} testId="register-page">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onSubmit();
        }}
      >
        <Stack gap="sm">
          <TextInput
            label={t('auth.username')}
            placeholder={t('auth.usernamePlaceholder')}
            name="username"
            autoComplete="username"
            {...field('username')}
          />
          <PasswordInput
            label={t('auth.password')}
            placeholder={t('auth.passwordPlaceholder')}
            name="password"
            autoComplete="new-password"
            {...field('password')}
          />
          <PasswordInput
            label={t('auth.password2')}
            placeholder={t('auth.password2')}
            name="password2"
            autoComplete="new-password"
            {...field('password2')}
          />
          {emailVerification && (
            <>
              <TextInput
                label={t('auth.email')}
                placeholder={t('auth.emailPlaceholder')}
                type="email"
                name="email"
                {...field('email')}
                rightSectionWidth={120}
                rightSection={
                  <Button
                    size="compact-sm"
                    variant="light"
                    disabled={countdown.active}
                    loading={sendCode.isPending}
                    onClick={onSendCode}
                  >
                    {countdown.active
                      ? t('auth.resendIn', { seconds: countdown.remaining })
                      : t('auth.getCode')}
                  </Button>
                }
              />
              <TextInput
                label={t('auth.verificationCode')}
                name="verification_code"
                {...field('verificationCode')}
              />
            </>
          )}
          {turnstileEnabled && status && (
            <TurnstileWidget siteKey={status.turnstile_site_key} onVerify={setTurnstileToken} />
          )}
          <Button type="submit" fullWidth loading={submit.isPending} data-testid="register-submit">
            {t('auth.register')}
          </Button>
        </Stack>
      </form>
      <Group justify="center">
        <Text size="sm">
          {t('auth.haveAccount')}{' '}
          <Anchor component={Link} to="/login">
            {t('auth.loginLink')}
          </Anchor>
        </Text>
      </Group>
    </AuthCard>
  );
};
