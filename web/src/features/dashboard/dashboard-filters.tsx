import { Group, NumberInput, SegmentedControl, Select, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { DashboardFilters, RangePreset, Scope } from './dashboard-model.js';

const PRESETS: readonly RangePreset[] = ['7', '30', 'custom'];
const SCOPES: readonly Scope[] = ['self', 'all', 'user', 'channel'];

/** Range (last 7 / 30 days or custom days) and, for admins, whose usage: me, everyone, a user, a channel. */
export const DashboardFilterBar = ({
  filters,
  onChange,
  admin,
}: {
  filters: DashboardFilters;
  onChange: (filters: DashboardFilters) => void;
  admin: boolean;
}) => {
  const { t } = useTranslation();
  const set = <K extends keyof DashboardFilters>(key: K, value: DashboardFilters[K]) =>
    onChange({ ...filters, [key]: value });
  return (
    <Group gap="sm" align="flex-end" wrap="wrap">
      <SegmentedControl
        value={filters.preset}
        onChange={(value) => set('preset', PRESETS.find((preset) => preset === value) ?? '7')}
        data={PRESETS.map((preset) => ({ value: preset, label: t(`dashboard.range.${preset}`) }))}
        data-testid="dashboard-range"
      />
      {filters.preset === 'custom' && (
        <>
          <TextInput
            type="date"
            label={t('dashboard.range.from')}
            value={filters.startDate}
            onChange={(event) => set('startDate', event.currentTarget.value)}
            data-testid="dashboard-start"
          />
          <TextInput
            type="date"
            label={t('dashboard.range.to')}
            value={filters.endDate}
            onChange={(event) => set('endDate', event.currentTarget.value)}
            data-testid="dashboard-end"
          />
        </>
      )}
      {admin && (
        <Select
          w={{ base: '100%', xs: 180 }}
          label={t('dashboard.scope.label')}
          value={filters.scope}
          allowDeselect={false}
          onChange={(value) => set('scope', SCOPES.find((scope) => scope === value) ?? 'self')}
          data={SCOPES.map((scope) => ({ value: scope, label: t(`dashboard.scope.${scope}`) }))}
          data-testid="dashboard-scope"
        />
      )}
      {admin && filters.scope === 'user' && (
        <TextInput
          label={t('dashboard.username')}
          placeholder={t('dashboard.usernamePlaceholder')}
          value={filters.username}
          onChange={(event) => set('username', event.currentTarget.value)}
          data-testid="dashboard-username"
        />
      )}
      {admin && filters.scope === 'channel' && (
        <NumberInput
          label={t('dashboard.channel')}
          placeholder={t('dashboard.channelPlaceholder')}
          value={filters.channel || ''}
          min={1}
          allowDecimal={false}
          allowNegative={false}
          onChange={(value) => set('channel', typeof value === 'number' ? value : 0)}
          data-testid="dashboard-channel"
        />
      )}
    </Group>
  );
};
