import { Button, Group, Stack, TextInput, Title } from '@mantine/core';
import { IconCopy, IconKey, IconLink, IconTrash, IconUserEdit } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { copyText, copyWithToast } from '../../../lib/clipboard.js';
import { serverAddress } from '../../../lib/status.js';
import { AccountBindings } from './account-bindings.js';
import { DeleteAccountDialog } from './delete-account-dialog.js';
import { getAffCode, inviteLink, regenerateAccessToken } from './personal-api.js';
import { PasskeySection } from './passkey-section.js';
import { QuotaAlertSection } from './quota-alert-section.js';
import { TwoFactorSection } from './two-factor-section.js';

/**
 * Personal settings (spec §2): update info, generate a system access token, copy the invite link,
 * delete the account; then the user's quota alerts, two-factor authentication, passkeys and the
 * account bindings.
 */
export const PersonalSettings = () => {
  const { t } = useTranslation();
  const [shown, setShown] = useState<{ label: string; value: string } | undefined>();
  const [deleting, setDeleting] = useState(false);

  const copyAndShow = async (label: string, value: string, success: string) => {
    setShown({ label, value });
    await copyWithToast(value, { success, manual: t('common.copyManuallyBelow') });
  };
  const accessToken = useMutation({
    mutationFn: regenerateAccessToken,
    onSuccess: (token) =>
      copyAndShow(t('setting.personal.accessToken'), token, t('setting.personal.tokenCopied')),
  });
  const invite = useMutation({
    mutationFn: getAffCode,
    onSuccess: (code) =>
      copyAndShow(
        t('setting.personal.inviteLink'),
        inviteLink(serverAddress(), code),
        t('setting.personal.inviteCopied'),
      ),
  });

  return (
    <Stack gap="lg" data-testid="personal-settings">
      <Stack gap="sm">
        <Title order={4}>{t('setting.personal.title')}</Title>
        <Group gap="sm">
          <Button component={Link} to="/user/edit" leftSection={<IconUserEdit size={16} />}>
            {t('setting.personal.updateInfo')}
          </Button>
          <Button
            variant="light"
            leftSection={<IconKey size={16} />}
            loading={accessToken.isPending}
            onClick={() => accessToken.mutate()}
            data-testid="access-token"
          >
            {t('setting.personal.generateToken')}
          </Button>
          <Button
            variant="light"
            leftSection={<IconLink size={16} />}
            loading={invite.isPending}
            onClick={() => invite.mutate()}
            data-testid="invite-link"
          >
            {t('setting.personal.copyInvite')}
          </Button>
          <Button
            color="red"
            variant="light"
            leftSection={<IconTrash size={16} />}
            onClick={() => setDeleting(true)}
            data-testid="delete-account"
          >
            {t('setting.personal.deleteAccount')}
          </Button>
        </Group>
        {shown && (
          <TextInput
            label={shown.label}
            value={shown.value}
            readOnly
            onFocus={(event) => event.currentTarget.select()}
            data-testid="personal-shown-value"
            rightSection={
              <IconCopy size={16} style={{ cursor: 'pointer' }} onClick={() => void copyText(shown.value)} />
            }
          />
        )}
      </Stack>
      <QuotaAlertSection />
      <TwoFactorSection />
      <PasskeySection />
      <AccountBindings />
      <DeleteAccountDialog opened={deleting} onClose={() => setDeleting(false)} />
    </Stack>
  );
};
