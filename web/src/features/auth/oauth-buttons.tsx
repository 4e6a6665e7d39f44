import { ActionIcon, Divider, Group, Tooltip } from '@mantine/core';
import { IconBrandGithub, IconBrandWechat, IconFeather, IconKey } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { CodeDialog } from '../../components/code-dialog.js';
import { openGitHubLogin, openLarkLogin, openOidcLogin } from '../../lib/oauth.js';
import { signIn } from '../../lib/session.js';
import { useStatus } from '../../lib/status.js';
import { showSuccess } from '../../lib/toast.js';
import { isChallenge, secondFactorState, wechatLogin } from './auth-api.js';

/** The optional round third-party buttons of the login screen, as the status record enables them. */
export const OAuthButtons = () => {
  const { t } = useTranslation();
  const status = useStatus();
  const navigate = useNavigate();
  const [wechatOpen, setWechatOpen] = useState(false);
  const github = useMutation({ mutationFn: openGitHubLogin });
  const lark = useMutation({ mutationFn: openLarkLogin });
  const oidc = useMutation({ mutationFn: openOidcLogin });
  const wechat = useMutation({
    mutationFn: wechatLogin,
    onSuccess: async (answer) => {
      setWechatOpen(false);
      if (isChallenge(answer)) {
        await navigate('/login', { state: secondFactorState(answer) });
        return;
      }
      signIn(answer);
      showSuccess(t('auth.loginSuccess'));
      await navigate('/');
    },
  });
  if (!status) return null;
  const showGitHub = status.github_oauth;
  const showWeChat = status.wechat_login;
  const showLark = status.lark_client_id !== '';
  const showOidc = status.oidc;
  if (!showGitHub && !showWeChat && !showLark && !showOidc) return null;

  return (
    <>
      <Divider label={t('auth.orUse')} labelPosition="center" />
      <Group justify="center" gap="md">
        {showGitHub && (
          <Tooltip label={t('auth.githubLogin')}>
            <ActionIcon
              size={44}
              radius="xl"
              variant="default"
              aria-label={t('auth.githubLogin')}
              loading={github.isPending}
              onClick={() => github.mutate(status.github_client_id)}
              data-testid="oauth-github"
            >
              <IconBrandGithub size={22} />
            </ActionIcon>
          </Tooltip>
        )}
        {showWeChat && (
          <Tooltip label={t('auth.wechatLogin')}>
            <ActionIcon
              size={44}
              radius="xl"
              variant="default"
              color="green"
              aria-label={t('auth.wechatLogin')}
              onClick={() => setWechatOpen(true)}
              data-testid="oauth-wechat"
            >
              <IconBrandWechat size={22} color="var(--mantine-color-green-6)" />
            </ActionIcon>
          </Tooltip>
        )}
        {showLark && (
          <Tooltip label={t('auth.larkLogin')}>
            <ActionIcon
              size={44}
              radius="xl"
              variant="default"
              aria-label={t('auth.larkLogin')}
              loading={lark.isPending}
              onClick={() => lark.mutate(status.lark_client_id)}
              data-testid="oauth-lark"
            >
              <IconFeather size={22} color="var(--mantine-color-blue-6)" />
            </ActionIcon>
          </Tooltip>
        )}
        {showOidc && (
          <Tooltip label={t('oidc.login')}>
            <ActionIcon
              size={44}
              radius="xl"
              variant="default"
              aria-label={t('oidc.login')}
              loading={oidc.isPending}
              onClick={() => oidc.mutate()}
              data-testid="oauth-oidc"
            >
              <IconKey size={22} color="var(--mantine-color-violet-6)" />
            </ActionIcon>
          </Tooltip>
        )}
      </Group>
      <CodeDialog
        opened={wechatOpen}
        onClose={() => setWechatOpen(false)}
        title={t('auth.wechatLogin')}
        qrCode={status.wechat_qrcode}
        hint={t('auth.wechatHint')}
        submitLabel={t('auth.login')}
        onSubmit={(code) => wechat.mutate(code)}
        loading={wechat.isPending}
      />
    </>
  );
};
