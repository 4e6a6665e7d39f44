import { Button, Group, PasswordInput, Stack, TextInput } from '@mantine/core';
import { USER_LIMITS } from '@sluice/contract/schemas/user';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { PageCard } from '../../components/page-card.js';
import { showError, showSuccess } from '../../lib/toast.js';
import { createUser, type NewUser } from './user-api.js';

/** Spec §5: creating a user needs a username and a password (the 8-character minimum is a hint). */
export const newUserError = (input: NewUser): 'userAdmin.required' | undefined =>
  input.username.trim() === '' || input.password === '' ? 'userAdmin.required' : undefined;

/** Create a user (spec §3): username, display name, password. */
export const UserAddPage = () => {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [form, setForm] = useState<NewUser>({ username: '', display_name: '', password: '' });
  const set = (key: keyof NewUser, value: string) => setForm((current) => ({ ...current, [key]: value }));
  const create = useMutation({
    mutationFn: () => createUser({ ...form, username: form.username.trim() }),
    onSuccess: async () => {
      showSuccess(t('userAdmin.created'));
      await queryClient.invalidateQueries({ queryKey: ['users'] });
      await navigate('/user');
    },
  });
  return (
    <PageCard title={t('userAdmin.addTitle')} testId="user-add-page">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const error = newUserError(form);
          if (error) showError(t(error));
          else create.mutate();
        }}
      >
        <Stack maw={480} gap="md">
          <TextInput
            label={t('userAdmin.username')}
            placeholder={t('userAdmin.usernamePlaceholder', { max: USER_LIMITS.usernameMax })}
            value={form.username}
            onChange={(event) => set('username', event.currentTarget.value)}
            name="username"
            autoComplete="off"
            withAsterisk
          />
          <TextInput
            label={t('userAdmin.displayName')}
            placeholder={t('userAdmin.displayNamePlaceholder')}
            value={form.display_name}
            onChange={(event) => set('display_name', event.currentTarget.value)}
            name="display_name"
            autoComplete="off"
          />
          <PasswordInput
            label={t('userAdmin.password')}
            placeholder={t('userAdmin.passwordPlaceholder', { min: USER_LIMITS.passwordMin })}
            value={form.password}
            onChange={(event) => set('password', event.currentTarget.value)}
            name="password"
            autoComplete="new-password"
            withAsterisk
          />
          <Group>
            <Button type="submit" loading={create.isPending} data-testid="user-create">
              {t('common.submit')}
            </Button>
            <Button variant="default" onClick={() => void navigate('/user')}>
              {t('common.cancel')}
            </Button>
          </Group>
        </Stack>
      </form>
    </PageCard>
  );
};
