import { ActionIcon, Button, Group, Menu } from '@mantine/core';
import { IconChevronDown, IconCopy, IconExternalLink } from '@tabler/icons-react';
import { TOKEN_STATUS } from '@sluice/contract/statuses';
import type { Token } from '@sluice/contract/schemas/token';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ConfirmButton } from '../../components/confirm-button.js';
import { copyWithToast } from '../../lib/clipboard.js';
import { serverAddress } from '../../lib/status.js';
import { readStorage } from '../../lib/storage.js';
import { showSuccess } from '../../lib/toast.js';
import { deleteToken, setTokenStatus } from './token-api.js';
import { CHAT_CLIENTS, tokenLink, type TokenLinkKind } from './token-links.js';

const linkContext = () => ({ serverAddress: serverAddress(), chatLink: readStorage('chat_link') ?? '' });

/** A row's actions: copy (key or a chat-client link), open in a chat client, toggle, edit, delete. */
export const TokenActions = ({
  token,
  onCopyFailed,
}: {
  token: Token;
  onCopyFailed: (text: string) => void;
}) => {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['tokens'] });
  const toggle = useMutation({
    mutationFn: () =>
      setTokenStatus(
        token,
        token.status === TOKEN_STATUS.enabled ? TOKEN_STATUS.disabled : TOKEN_STATUS.enabled,
      ),
    onSuccess: async () => {
      showSuccess(t('common.operationSuccess'));
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: () => deleteToken(token.id),
    onSuccess: async () => {
      showSuccess(t('common.operationSuccess'));
      await refresh();
    },
  });

  const copy = async (kind: TokenLinkKind) => {
    const text = tokenLink(kind, token.key, linkContext());
    const copied = await copyWithToast(text, {
      success: t('common.copiedToClipboard'),
      manual: t('common.copyManually'),
    });
    if (!copied) onCopyFailed(text);
  };
  const open = (kind: TokenLinkKind) => globalThis.open(tokenLink(kind, token.key, linkContext()), '_blank');

  return (
    <Group gap={6} wrap="wrap">
      <Group gap={0} wrap="nowrap">
        <Button
          size="compact-sm"
          color="teal"
          leftSection={<IconCopy size={14} />}
          style={{ borderTopRightRadius: 0, borderBottomRightRadius: 0 }}
          onClick={() => void copy('key')}
          data-testid="token-copy"
        >
          {t('common.copy')}
        </Button>
        <Menu position="bottom-end" withinPortal>
          <Menu.Target>
            <ActionIcon
              size={26}
              color="teal"
              variant="filled"
              style={{
                borderTopLeftRadius: 0,
                borderBottomLeftRadius: 0,
                borderLeft: '1px solid rgba(255,255,255,.4)',
              }}
              aria-label={t('token.copyLinks')}
              data-testid="token-copy-menu"
            >
              <IconChevronDown size={14} />
            </ActionIcon>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Label>{t('token.copyLinks')}</Menu.Label>
            {CHAT_CLIENTS.map((client) => (
              <Menu.Item
                key={client.kind}
                onClick={() => void copy(client.kind)}
                data-testid={`token-copy-${client.kind}`}
              >
                {client.label}
              </Menu.Item>
            ))}
          </Menu.Dropdown>
        </Menu>
      </Group>
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <Button size="compact-sm" variant="light" rightSection={<IconExternalLink size={14} />}>
            {t('token.chat')}
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          {CHAT_CLIENTS.map((client) => (
            <Menu.Item key={client.kind} onClick={() => open(client.kind)}>
              {client.label}
            </Menu.Item>
          ))}
        </Menu.Dropdown>
      </Menu>
      <Button
        size="compact-sm"
        variant="default"
        loading={toggle.isPending}
        onClick={() => toggle.mutate()}
        data-testid="token-toggle"
      >
        {token.status === TOKEN_STATUS.enabled ? t('common.disable') : t('common.enable')}
      </Button>
      <Button
        size="compact-sm"
        variant="default"
        component={Link}
        to={`/token/edit/${token.id}`}
        data-testid="token-edit"
      >
        {t('common.edit')}
      </Button>
      <ConfirmButton
        size="compact-sm"
        variant="light"
        label={t('common.delete')}
        question={t('token.deleteConfirm', { name: token.name })}
        loading={remove.isPending}
        onConfirm={() => remove.mutate()}
        data-testid="token-delete"
      />
    </Group>
  );
};
