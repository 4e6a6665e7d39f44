import {
  Button,
  Group,
  NumberInput,
  PasswordInput,
  Select,
  SimpleGrid,
  Stack,
  TextInput,
} from '@mantine/core';
import type { User } from '@sluice/contract/schemas/user';
import { USER_LIMITS } from '@sluice/contract/schemas/user';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { ListState } from '../../components/list-state.js';
import { PageCard } from '../../components/page-card.js';
import { BudgetFields } from '../../components/budget-fields.js';
import { BudgetUsageBars } from '../../components/budget-usage-bars.js';
import { RateLimitFields } from '../../components/rate-limit-fields.js';
import { budgetFormOf, budgetInputOf, EMPTY_BUDGETS, type BudgetForm } from '../../lib/budget-form.js';
import { useQuotaFormatter } from '../../lib/format.js';
import {
  EMPTY_RATE_LIMITS,
  rateLimitFormOf,
  rateLimitInputOf,
  type RateLimitForm,
} from '../../lib/rate-limit-form.js';
import { currentUser, signIn } from '../../lib/session.js';
import { showError, showSuccess } from '../../lib/toast.js';
import { getSelf, getUser, listGroups, updateSelf, updateUser } from './user-api.js';
import { UserTwoFactorReset } from './user-two-factor-reset.js';

interface FormState {
  username: string;
  display_name: string;
  password: string;
  quota: number;
  group: string;
  limits: RateLimitForm;
  budgets: BudgetForm;
}

const formOf = (user: User): FormState => ({
  username: user.username,
  display_name: user.display_name,
  password: '',
  quota: user.quota,
  group: user.group || 'default',
  limits: rateLimitFormOf(user),
  budgets: budgetFormOf(user),
});

/**
 * Edit a user (spec §3): /user/edit edits oneself (group and quota hidden); /user/edit/:id is the
 * admin's form with group, quota and rate limits. The password is blank on load (blank keeps it).
 */
export const UserEditPage = () => {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const formatQuota = useQuotaFormatter();
  const id = Number(useParams().id ?? 0);
  const admin = id > 0;
  const user = useQuery({
    queryKey: admin ? ['users', 'one', id] : ['self'],
    queryFn: () => (admin ? getUser(id) : getSelf()),
  });
  const groups = useQuery({ queryKey: ['groups'], queryFn: listGroups, enabled: admin });
  const [form, setForm] = useState<FormState>({
    username: '',
    display_name: '',
    password: '',
    quota: 0,
    group: 'default',
    limits: EMPTY_RATE_LIMITS,
    budgets: EMPTY_BUDGETS,
  });
  useEffect(() => {
    if (user.data) setForm(formOf(user.data));
  }, [user.data]);
  const set = <K extends keyof FormState>(key: K, value: FormState[K]) =>
    setForm((current) => ({ ...current, [key]: value }));

  const save = useMutation({
    mutationFn: (
      limits: (ReturnType<typeof rateLimitInputOf> & ReturnType<typeof budgetInputOf>) | undefined,
    ) =>
      admin && limits
        ? updateUser({
            id,
            username: form.username.trim(),
            display_name: form.display_name,
            password: form.password,
            quota: Math.trunc(form.quota),
            group: form.group,
            ...limits,
          })
        : updateSelf({
            username: form.username.trim(),
            display_name: form.display_name,
            password: form.password,
          }),
    onSuccess: async () => {
      showSuccess(t('user.updated'));
      const stored = currentUser();
      if (!admin && stored)
        signIn({
          ...stored,
          username: form.username.trim() || stored.username,
          display_name: form.display_name,
        });
      await queryClient.invalidateQueries({ queryKey: admin ? ['users'] : ['self'] });
      set('password', '');
      if (admin) await navigate('/user');
    },
  });
  const groupOptions = [...new Set([...(groups.data ?? []), form.group])];

  return (
    <PageCard title={admin ? t('user.editTitle') : t('user.selfEditTitle')} testId="user-edit">
      <ListState loading={user.isPending} empty={false}>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const limits = rateLimitInputOf(form.limits);
            const budgets = budgetInputOf(form.budgets);
            if (admin && limits === undefined) showError(t('limits.invalid'));
            else if (admin && budgets === undefined) showError(t('limits.budgetInvalid'));
            else save.mutate(limits && budgets && { ...limits, ...budgets });
          }}
        >
          <Stack maw={640} gap="md">
            <TextInput
              label={t('user.username')}
              placeholder={t('user.usernamePlaceholder')}
              value={form.username}
              onChange={(event) => set('username', event.currentTarget.value)}
              name="username"
            />
            <PasswordInput
              label={t('user.password')}
              placeholder={t('user.passwordPlaceholder', { min: USER_LIMITS.passwordMin })}
              value={form.password}
              onChange={(event) => set('password', event.currentTarget.value)}
              autoComplete="new-password"
              name="password"
            />
            <TextInput
              label={t('user.displayName')}
              placeholder={t('user.displayNamePlaceholder')}
              value={form.display_name}
              onChange={(event) => set('display_name', event.currentTarget.value)}
              name="display_name"
            />
            {admin && (
              <SimpleGrid cols={{ base: 1, xs: 2 }}>
                <Select
                  label={t('user.group')}
                  data={groupOptions}
                  value={form.group}
                  allowDeselect={false}
                  onChange={(value) => set('group', value ?? 'default')}
                  searchable
                />
                <NumberInput
                  label={t('user.quota')}
                  description={formatQuota(form.quota)}
                  value={form.quota}
                  min={0}
                  allowDecimal={false}
                  thousandSeparator=","
                  onChange={(value) => set('quota', typeof value === 'number' ? value : 0)}
                />
              </SimpleGrid>
            )}
            {admin && <RateLimitFields value={form.limits} onChange={(limits) => set('limits', limits)} />}
            {admin && <BudgetFields value={form.budgets} onChange={(budgets) => set('budgets', budgets)} />}
            {admin && <BudgetUsageBars usage={user.data?.budget_usage} />}
            <SimpleGrid cols={{ base: 1, xs: 3 }}>
              <TextInput
                label={t('user.githubId')}
                value={user.data?.github_id ?? ''}
                placeholder={t('user.readOnlyHint')}
                readOnly
              />
              <TextInput
                label={t('user.wechatId')}
                value={user.data?.wechat_id ?? ''}
                placeholder={t('user.readOnlyHint')}
                readOnly
              />
              <TextInput
                label={t('user.email')}
                value={user.data?.email ?? ''}
                placeholder={t('user.readOnlyHint')}
                readOnly
              />
            </SimpleGrid>
            <Group>
              <Button type="submit" loading={save.isPending} data-testid="user-submit">
                {t('common.submit')}
              </Button>
              <Button variant="default" onClick={() => void navigate(-1)}>
                {t('common.cancel')}
              </Button>
              {admin && <UserTwoFactorReset id={id} />}
            </Group>
          </Stack>
        </form>
      </ListState>
    </PageCard>
  );
};
