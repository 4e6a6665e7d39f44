import { Button, Checkbox, Group, MultiSelect, NumberInput, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { ListState } from '../../components/list-state.js';
import { PageCard } from '../../components/page-card.js';
import { BudgetFields } from '../../components/budget-fields.js';
import { RateLimitFields } from '../../components/rate-limit-fields.js';
import { budgetFormOf } from '../../lib/budget-form.js';
import { rateLimitFormOf } from '../../lib/rate-limit-form.js';
import { useQuotaFormatter } from '../../lib/format.js';
import { showError, showSuccess } from '../../lib/toast.js';
import { availableModels, createToken, getToken, updateToken, type TokenInput } from './token-api.js';
import { expiryText, presetText, type ExpiryPreset } from './token-expiry.js';
import { EMPTY_TOKEN_FORM, tokenInputOf, type TokenFormState } from './token-form-model.js';

const PRESETS: readonly ExpiryPreset[] = ['never', 'month', 'day', 'hour', 'minute'];

/**
 * Token form (/token/add, /token/edit/:id): name, quota or unlimited, expiry presets, models, subnet,
 * rate limits.
 */
export const TokenFormPage = () => {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const formatQuota = useQuotaFormatter();
  const queryClient = useQueryClient();
  const id = Number(useParams().id ?? 0);
  const editing = id > 0;
  const [form, setForm] = useState<TokenFormState>(EMPTY_TOKEN_FORM);
  const existing = useQuery({
    queryKey: ['tokens', 'one', id],
    queryFn: () => getToken(id),
    enabled: editing,
  });
  const models = useQuery({ queryKey: ['available_models'], queryFn: availableModels });

  useEffect(() => {
    const token = existing.data;
    if (!token) return;
    setForm({
      name: token.name,
      remainQuota: token.remain_quota,
      unlimited: token.unlimited_quota,
      expiry: expiryText(token.expired_time),
      models: token.models === '' ? [] : token.models.split(','),
      subnet: token.subnet,
      limits: rateLimitFormOf(token),
      budgets: budgetFormOf(token),
    });
  }, [existing.data]);

  const save = useMutation({
    mutationFn: (input: TokenInput) => (editing ? updateToken(id, input) : createToken(input)),
    onSuccess: async () => {
      showSuccess(editing ? t('token.updated') : t('token.created'));
      await queryClient.invalidateQueries({ queryKey: ['tokens'] });
      await navigate('/token');
    },
  });
  const set = <K extends keyof TokenFormState>(key: K, value: TokenFormState[K]) =>
    setForm((current) => ({ ...current, [key]: value }));
  const modelOptions = [...new Set([...(models.data ?? []), ...form.models])];

  return (
    <PageCard title={editing ? t('token.editTitle') : t('token.addTitle')} testId="token-form">
      <ListState loading={editing && existing.isPending} empty={false}>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const result = tokenInputOf(form, !editing);
            if ('problem' in result) showError(t(result.problem));
            else save.mutate(result.input);
          }}
        >
          <Stack gap="md" maw={640}>
            <TextInput
              label={t('token.name')}
              placeholder={t('token.namePlaceholder')}
              value={form.name}
              onChange={(event) => set('name', event.currentTarget.value)}
              name="name"
            />
            <MultiSelect
              label={t('token.models')}
              description={t('token.modelsHint')}
              placeholder={form.models.length === 0 ? t('token.modelsPlaceholder') : undefined}
              data={modelOptions}
              value={form.models}
              onChange={(value) => set('models', value)}
              searchable
              clearable
              nothingFoundMessage={t('common.nothingFound')}
            />
            <TextInput
              label={t('token.subnet')}
              description={t('token.subnetHint')}
              placeholder="192.168.0.0/16,10.0.0.0/8"
              value={form.subnet}
              onChange={(event) => set('subnet', event.currentTarget.value)}
            />
            <Stack gap={6}>
              <TextInput
                label={t('token.expiredTime')}
                description={t('token.expiryHint')}
                placeholder="YYYY-MM-DD HH:mm:ss"
                value={form.expiry}
                onChange={(event) => set('expiry', event.currentTarget.value)}
                name="expiry"
              />
              <Group gap="xs">
                {PRESETS.map((preset) => (
                  <Button
                    key={preset}
                    size="compact-sm"
                    variant="default"
                    onClick={() => set('expiry', presetText(preset))}
                    data-testid={`expiry-${preset}`}
                  >
                    {t(`token.expiry.${preset}`)}
                  </Button>
                ))}
              </Group>
            </Stack>
            <Text size="sm" c="dimmed">
              {t('token.quotaNote')}
            </Text>
            <NumberInput
              label={t('token.remainQuota')}
              description={t('token.quotaEquals', { amount: formatQuota(form.remainQuota) })}
              value={form.remainQuota}
              onChange={(value) => set('remainQuota', typeof value === 'number' ? value : Number(value) || 0)}
              min={0}
              step={1}
              allowDecimal={false}
              disabled={form.unlimited}
              thousandSeparator=","
              name="remain_quota"
            />
            <Checkbox
              label={t('token.unlimitedQuota')}
              checked={form.unlimited}
              onChange={(event) => set('unlimited', event.currentTarget.checked)}
              data-testid="token-unlimited"
            />
            <RateLimitFields value={form.limits} onChange={(limits) => set('limits', limits)} />
            <BudgetFields value={form.budgets} onChange={(budgets) => set('budgets', budgets)} />
            <Group>
              <Button type="submit" loading={save.isPending} data-testid="token-submit">
                {t('common.submit')}
              </Button>
              <Button variant="default" onClick={() => void navigate('/token')}>
                {t('common.cancel')}
              </Button>
            </Group>
          </Stack>
        </form>
      </ListState>
    </PageCard>
  );
};
