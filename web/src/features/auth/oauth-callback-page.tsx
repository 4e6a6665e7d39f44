import { Center, Loader, Stack, Text } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { BusinessError, HttpError } from '../../lib/api-client.js';
import { handleError } from '../../lib/error-handler.js';
import { signIn } from '../../lib/session.js';
import { showSuccess } from '../../lib/toast.js';
import { finishOAuth, isChallenge, secondFactorState, type OAuthProvider } from './auth-api.js';

/** Attempts before giving up when the server cannot be reached; attempt n waits 2 s × n (spec §9). */
export const OAUTH_MAX_ATTEMPTS = 3;
export const OAUTH_RETRY_STEP_MS = 2000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The server answered no (`success: false`, or a 4xx such as the 403 of a wrong state): final. */
const isRefusal = (error: unknown): boolean =>
  error instanceof BusinessError ||
  (error instanceof HttpError && error.status >= 400 && error.status < 500 && error.status !== 429);

/**
 * The third-party callback (spec §2): sends code and state. 'bind' → /setting; a user → stored, /;
 * a user with a second factor → the login screen's second step.
 * A refusal (`success: false` or a 4xx: a used or expired code, a wrong state) shows its message and goes to
 * /setting at once, as one-api does: the same code would be refused again. A call that did not get
 * an answer (network, 5xx) shows its message once and is tried again after 2 s × the attempt number;
 * when every attempt failed the visitor goes to /setting (a failed bind starts there).
 */
const OAuthCallback = ({ provider }: { provider: OAuthProvider }) => {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [prompt, setPrompt] = useState(t('oauth.processing'));
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const query = Object.fromEntries(params);
    const run = async () => {
      for (let attempt = 1; attempt <= OAUTH_MAX_ATTEMPTS; attempt += 1) {
        try {
          const result = await finishOAuth(provider, query);
          if (result.bound) {
            showSuccess(t('oauth.bound'));
            await navigate('/setting');
          } else if (isChallenge(result.answer)) {
            await navigate('/login', { state: secondFactorState(result.answer) });
          } else {
            signIn(result.answer);
            showSuccess(t('auth.loginSuccess'));
            await navigate('/');
          }
          return;
        } catch (error) {
          if (attempt === 1) handleError(error);
          if (isRefusal(error) || attempt === OAUTH_MAX_ATTEMPTS) break;
          setPrompt(t('oauth.retrying', { attempt }));
          await sleep(OAUTH_RETRY_STEP_MS * attempt);
        }
      }
      setPrompt(t('oauth.failed'));
      await navigate('/setting');
    };
    void run();
  }, [navigate, params, provider, t]);

  return (
    <Center py={80}>
      <Stack align="center" gap="sm" data-testid="oauth-callback">
        <Loader />
        <Text c="dimmed">{prompt}</Text>
      </Stack>
    </Center>
  );
};

export const GitHubCallbackPage = () => <OAuthCallback provider="github" />;
export const LarkCallbackPage = () => <OAuthCallback provider="lark" />;
export const OidcCallbackPage = () => <OAuthCallback provider="oidc" />;
