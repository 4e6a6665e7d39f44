import { Button, Group } from '@mantine/core';
import type { User, UserAction } from '@sluice/contract/schemas/user';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ConfirmButton } from '../../components/confirm-button.js';
import { showSuccess } from '../../lib/toast.js';
import { manageUser, type ManageResult } from './user-api.js';
import { rowActions } from './user-row-model.js';

/**
 * A row's actions (spec §2, §4): promote, demote, delete (asks first), disable/enable and edit.
 * On success the row takes the returned role and status; a deleted row is hidden by the list.
 */
export const UserActions = ({
  user,
  viewerRole,
  onManaged,
}: {
  user: User;
  viewerRole: number;
  onManaged: (action: UserAction, result: ManageResult) => void;
}) => {
  const { t } = useTranslation();
  const allowed = rowActions(user, viewerRole);
  const manage = useMutation({
    mutationFn: (action: UserAction) => manageUser(user.username, action),
    onSuccess: (result, action) => {
      showSuccess(t('common.operationSuccess'));
      onManaged(action, result);
    },
  });
  const pending = (action: UserAction) => manage.isPending && manage.variables === action;
  return (
    <Group gap={6} wrap="wrap">
      <Button
        size="compact-sm"
        variant="light"
        disabled={!allowed.promote || manage.isPending}
        loading={pending('promote')}
        onClick={() => manage.mutate('promote')}
        data-testid="user-promote"
      >
        {t('userAdmin.promote')}
      </Button>
      <Button
        size="compact-sm"
        variant="light"
        color="orange"
        disabled={!allowed.demote || manage.isPending}
        loading={pending('demote')}
        onClick={() => manage.mutate('demote')}
        data-testid="user-demote"
      >
        {t('userAdmin.demote')}
      </Button>
      <Button
        size="compact-sm"
        variant="default"
        disabled={!allowed.toggleAllowed || manage.isPending}
        loading={pending(allowed.toggle)}
        onClick={() => manage.mutate(allowed.toggle)}
        data-testid="user-toggle"
      >
        {allowed.toggle === 'disable' ? t('common.disable') : t('common.enable')}
      </Button>
      {allowed.edit ? (
        <Button
          size="compact-sm"
          variant="default"
          component={Link}
          to={`/user/edit/${user.id}`}
          data-testid="user-edit"
        >
          {t('common.edit')}
        </Button>
      ) : (
        <Button size="compact-sm" variant="default" disabled data-testid="user-edit">
          {t('common.edit')}
        </Button>
      )}
      <ConfirmButton
        size="compact-sm"
        variant="light"
        label={t('common.delete')}
        question={t('userAdmin.deleteConfirm', { name: user.username })}
        disabled={!allowed.delete || manage.isPending}
        loading={pending('delete')}
        onConfirm={() => manage.mutate('delete')}
        data-testid="user-delete"
      />
    </Group>
  );
};
