import { Button, Group, NumberInput, Stack, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { ListState } from '../../components/list-state.js';
import { PageCard } from '../../components/page-card.js';
import { downloadText } from '../../lib/api-client.js';
import { useQuotaFormatter } from '../../lib/format.js';
import { showError, showInfo, showSuccess } from '../../lib/toast.js';
import {
  createRedemptions,
  getRedemption,
  updateRedemption,
  type RedemptionCreation,
} from './redemption-api.js';
import {
  codesFileName,
  codesFileText,
  EMPTY_REDEMPTION_FORM,
  countInRange,
  MAX_REDEMPTION_COUNT,
  redemptionInputOf,
  type RedemptionFormState,
} from './redemption-form-model.js';

/**
 * Redemption form (/redemption/add, /redemption/edit/:id): name, quota (with its value in the display
 * unit), count on creation; the created codes are downloaded as `<name>.txt`.
 */
export const RedemptionFormPage = () => {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const formatQuota = useQuotaFormatter();
  const queryClient = useQueryClient();
  const id = Number(useParams().id ?? 0);
  const editing = id > 0;
  const [form, setForm] = useState<RedemptionFormState>(EMPTY_REDEMPTION_FORM);
  const existing = useQuery({
    queryKey: ['redemptions', 'one', id],
    queryFn: () => getRedemption(id),
    enabled: editing,
  });

  useEffect(() => {
    const redemption = existing.data;
    if (redemption) setForm({ name: redemption.name, quota: redemption.quota, count: 1 });
  }, [existing.data]);

  const save = useMutation({
    mutationFn: async (input: RedemptionCreation): Promise<string[]> => {
      if (editing) {
        await updateRedemption(id, { name: input.name, quota: input.quota });
        return [];
      }
      return createRedemptions({ name: input.name, quota: input.quota, count: input.count ?? 1 });
    },
    onSuccess: async (codes, input) => {
      if (editing) showSuccess(t('redemption.updated'));
      else {
        showSuccess(t('redemption.created'));
        const file = codesFileName(input.name);
        downloadText(codesFileText(codes), file);
        showInfo(t('redemption.downloaded', { count: codes.length, file }));
      }
      await queryClient.invalidateQueries({ queryKey: ['redemptions'] });
      await navigate('/redemption');
    },
  });
  const set = <K extends keyof RedemptionFormState>(key: K, value: RedemptionFormState[K]) =>
    setForm((current) => ({ ...current, [key]: value }));
  const quota = typeof form.quota === 'number' ? form.quota : Number(form.quota) || 0;

  return (
    <PageCard title={editing ? t('redemption.editTitle') : t('redemption.addTitle')} testId="redemption-form">
      <ListState loading={editing && existing.isPending} empty={false}>
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            const result = redemptionInputOf(form, !editing);
            if ('problem' in result) showError(t(result.problem));
            else save.mutate(result.input);
          }}
        >
          <Stack gap="md" maw={640}>
            <TextInput
              label={t('redemption.name')}
              placeholder={t('redemption.namePlaceholder')}
              description={editing ? undefined : t('redemption.nameHint')}
              required={!editing}
              value={form.name}
              onChange={(event) => set('name', event.currentTarget.value)}
              name="name"
            />
            <NumberInput
              label={t('redemption.quota')}
              description={t('redemption.quotaEquals', { amount: formatQuota(quota) })}
              value={form.quota}
              onChange={(value) => set('quota', value)}
              min={0}
              step={1}
              allowDecimal={false}
              allowNegative={false}
              thousandSeparator=","
              name="quota"
            />
            {!editing && (
              <NumberInput
                label={t('redemption.count')}
                description={t('redemption.countHint')}
                value={form.count}
                onChange={(value) => set('count', value)}
                min={1}
                max={MAX_REDEMPTION_COUNT}
                clampBehavior="none"
                error={countInRange(form.count) ? undefined : t('redemption.countRange')}
                step={1}
                allowDecimal={false}
                allowNegative={false}
                name="count"
              />
            )}
            <Group>
              <Button type="submit" loading={save.isPending} data-testid="redemption-submit">
                {t('common.submit')}
              </Button>
              <Button variant="default" onClick={() => void navigate('/redemption')}>
                {t('common.cancel')}
              </Button>
            </Group>
          </Stack>
        </form>
      </ListState>
    </PageCard>
  );
};
