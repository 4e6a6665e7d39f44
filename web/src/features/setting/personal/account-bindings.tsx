import { Badge, Button, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { IconBrandGithub, IconBrandWechat, IconFeather, IconKey, IconMail } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { CodeDialog } from '../../../components/code-dialog.js';
import { openGitHubLogin, openLarkLogin, openOidcLogin, unbindOidc } from '../../../lib/oauth.js';
import { useStatus } from '../../../lib/status.js';
import { showSuccess } from '../../../lib/toast.js';
import { EmailBindDialog } from './email-bind-dialog.js';
import { bindWeChat, getSelf } from './personal-api.js';

const Binding = ({
  icon,
  name,
  value,
  action,
}: {
  icon: ReactNode;
  name: string;
  value: string;
  action: ReactNode;
}) => {
  const { t } = useTranslation();
  return (
    <Paper withBorder p="sm" radius="md">
      <Group justify="space-between" wrap="nowrap" gap="sm">
        <Group gap="sm" wrap="nowrap" miw={0}>
          {icon}
          <Stack gap={0} miw={0}>
            <Text fw={600} size="sm">
              {name}
            </Text>
            {value !== '' ? (
              <Text size="xs" c="dimmed" truncate>
                {value}
              </Text>
            ) : (
              <Badge size="xs" variant="light" color="gray">
                {t('setting.binding.unbound')}
              </Badge>
            )}
          </Stack>
        </Group>
        {action}
      </Group>
    </Paper>
  );
};

/**
 * Account bindings (spec §2): WeChat (QR + code), GitHub, Lark, OpenID Connect (bind and unbind) and
 * email, as the status enables them.
 */
export const AccountBindings = () => {
  const { t } = useTranslation();
  const status = useStatus();
  const queryClient = useQueryClient();
  const self = useQuery({ queryKey: ['self'], queryFn: getSelf });
  const [wechatOpen, setWechatOpen] = useState(false);
  const [emailOpen, setEmailOpen] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['self'] });
  const wechat = useMutation({
    mutationFn: bindWeChat,
    onSuccess: async () => {
      setWechatOpen(false);
      showSuccess(t('setting.binding.wechatBound'));
      await refresh();
    },
  });
  const github = useMutation({ mutationFn: openGitHubLogin });
  const lark = useMutation({ mutationFn: openLarkLogin });
  const oidc = useMutation({ mutationFn: openOidcLogin });
  const unbind = useMutation({
    mutationFn: unbindOidc,
    onSuccess: async () => {
      showSuccess(t('oidc.unbound'));
      await refresh();
    },
  });
  const user = self.data;
  const oidcBound = (user?.oidc_id ?? '') !== '';

  return (
    <Stack gap="sm" data-testid="account-bindings">
      <Title order={4}>{t('setting.binding.title')}</Title>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        {status?.wechat_login && (
          <Binding
            icon={<IconBrandWechat size={24} color="var(--mantine-color-green-6)" />}
            name={t('setting.binding.wechat')}
            value={user?.wechat_id ?? ''}
            action={
              <Button size="compact-sm" variant="light" onClick={() => setWechatOpen(true)}>
                {t('setting.binding.bind')}
              </Button>
            }
          />
        )}
        {status?.github_oauth && (
          <Binding
            icon={<IconBrandGithub size={24} />}
            name="GitHub"
            value={user?.github_id ?? ''}
            action={
              <Button
                size="compact-sm"
                variant="light"
                disabled={(user?.github_id ?? '') !== ''}
                loading={github.isPending}
                onClick={() => github.mutate(status.github_client_id)}
              >
                {t('setting.binding.bind')}
              </Button>
            }
          />
        )}
        {status && status.lark_client_id !== '' && (
          <Binding
            icon={<IconFeather size={24} color="var(--mantine-color-blue-6)" />}
            name={t('setting.binding.lark')}
            value={user?.lark_id ?? ''}
            action={
              <Button
                size="compact-sm"
                variant="light"
                disabled={(user?.lark_id ?? '') !== ''}
                loading={lark.isPending}
                onClick={() => lark.mutate(status.lark_client_id)}
              >
                {t('setting.binding.bind')}
              </Button>
            }
          />
        )}
        {(status?.oidc || oidcBound) && (
          <Binding
            icon={<IconKey size={24} color="var(--mantine-color-violet-6)" />}
            name={t('oidc.name')}
            value={user?.oidc_id ?? ''}
            action={
              oidcBound ? (
                <Button
                  size="compact-sm"
                  variant="light"
                  color="red"
                  loading={unbind.isPending}
                  onClick={() => unbind.mutate()}
                  data-testid="unbind-oidc"
                >
                  {t('oidc.unbind')}
                </Button>
              ) : (
                <Button
                  size="compact-sm"
                  variant="light"
                  loading={oidc.isPending}
                  onClick={() => oidc.mutate()}
                  data-testid="bind-oidc"
                >
                  {t('setting.binding.bind')}
                </Button>
              )
            }
          />
        )}
        <Binding
          icon={<IconMail size={24} color="var(--mantine-color-indigo-6)" />}
          name={t('setting.binding.email')}
          value={user?.email ?? ''}
          action={
            <Button
              size="compact-sm"
              variant="light"
              onClick={() => setEmailOpen(true)}
              data-testid="bind-email"
            >
              {(user?.email ?? '') === '' ? t('setting.binding.bind') : t('setting.binding.change')}
            </Button>
          }
        />
      </SimpleGrid>
      <CodeDialog
        opened={wechatOpen}
        onClose={() => setWechatOpen(false)}
        title={t('setting.binding.wechat')}
        qrCode={status?.wechat_qrcode ?? ''}
        hint={t('auth.wechatHint')}
        submitLabel={t('setting.binding.bind')}
        onSubmit={(code) => wechat.mutate(code)}
        loading={wechat.isPending}
      />
      <EmailBindDialog opened={emailOpen} onClose={() => setEmailOpen(false)} onBound={refresh} />
    </Stack>
  );
};
