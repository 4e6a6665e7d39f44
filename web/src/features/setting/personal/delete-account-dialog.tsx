import { Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { SIGNED_OUT_STATE, useSession } from '../../../lib/session.js';
import { showError, showSuccess } from '../../../lib/toast.js';
import { confirmsDeletion, deleteSelf, logout } from './personal-api.js';

/** Self deletion (spec §4, §5): type the own username; then log out and go to /login. */
export const DeleteAccountDialog = ({ opened, onClose }: { opened: boolean; onClose: () => void }) => {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { user } = useSession();
  const [typed, setTyped] = useState('');
  const remove = useMutation({
    mutationFn: deleteSelf,
    onSuccess: async () => {
      showSuccess(t('setting.personal.accountDeleted'));
      await logout().catch(() => undefined);
      await navigate('/login', { state: SIGNED_OUT_STATE });
    },
  });
  return (
    <Modal opened={opened} onClose={onClose} title={t('setting.personal.deleteAccount')} centered>
      <Stack>
        <Text size="sm" c="red">
          {t('setting.personal.deleteWarning')}
        </Text>
        <TextInput
          label={t('setting.personal.typeUsername', { username: user?.username ?? '' })}
          value={typed}
          onChange={(event) => setTyped(event.currentTarget.value)}
          data-testid="delete-confirm-input"
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button
            color="red"
            loading={remove.isPending}
            onClick={() => {
              if (!user || !confirmsDeletion(typed, user.username)) {
                showError(t('setting.personal.typeUsernameError'));
                return;
              }
              remove.mutate();
            }}
            data-testid="delete-confirm"
          >
            {t('common.confirm')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
};
