import { Button, Group } from '@mantine/core';
import { IconCopy } from '@tabler/icons-react';
import type { Redemption } from '@sluice/contract/schemas/redemption';
import { REDEMPTION_STATUS } from '@sluice/contract/statuses';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ConfirmButton } from '../../components/confirm-button.js';
import { copyWithToast } from '../../lib/clipboard.js';
import { showSuccess } from '../../lib/toast.js';
import { deleteRedemption, setRedemptionStatus } from './redemption-api.js';

/** A row's actions: copy the code, enable / disable (not once used), edit, delete. */
export const RedemptionActions = ({
  redemption,
  onCopyFailed,
}: {
  redemption: Redemption;
  onCopyFailed: (text: string) => void;
}) => {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['redemptions'] });
  const used = redemption.status === REDEMPTION_STATUS.used;
  const enabled = redemption.status === REDEMPTION_STATUS.unused;
  const toggle = useMutation({
    mutationFn: () =>
      setRedemptionStatus(redemption, enabled ? REDEMPTION_STATUS.disabled : REDEMPTION_STATUS.unused),
    onSuccess: async () => {
      showSuccess(t('common.operationSuccess'));
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: () => deleteRedemption(redemption.id),
    onSuccess: async () => {
      showSuccess(t('common.operationSuccess'));
      await refresh();
    },
  });
  const copy = async () => {
    const copied = await copyWithToast(redemption.key, {
      success: t('common.copiedToClipboard'),
      manual: t('common.copyManually'),
    });
    if (!copied) onCopyFailed(redemption.key);
  };

  return (
    <Group gap={6} wrap="wrap">
      <Button
        size="compact-sm"
        color="teal"
        leftSection={<IconCopy size={14} />}
        onClick={() => void copy()}
        data-testid="redemption-copy"
      >
        {t('common.copy')}
      </Button>
      <Button
        size="compact-sm"
        variant="default"
        disabled={used}
        loading={toggle.isPending}
        onClick={() => toggle.mutate()}
        data-testid="redemption-toggle"
      >
        {enabled ? t('common.disable') : t('common.enable')}
      </Button>
      <Button
        size="compact-sm"
        variant="default"
        component={Link}
        to={`/redemption/edit/${redemption.id}`}
        data-testid="redemption-edit"
      >
        {t('common.edit')}
      </Button>
      <ConfirmButton
        size="compact-sm"
        variant="light"
        label={t('common.delete')}
        question={t('redemption.deleteConfirm', { name: redemption.name })}
        loading={remove.isPending}
        onConfirm={() => remove.mutate()}
        data-testid="redemption-delete"
      />
    </Group>
  );
};
