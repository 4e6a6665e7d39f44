import { Badge, Group, SegmentedControl, Select, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation } from 'react-router';
import { ListRows, type ListColumn } from '../../components/list-rows.js';
import { ListState } from '../../components/list-state.js';
import { PageCard } from '../../components/page-card.js';
import { useSession } from '../../lib/session.js';
import { useStatus } from '../../lib/status.js';
import { useStoredValue } from '../../lib/storage.js';
import { getPricing } from './pricing-api.js';
import {
  ALL_OWNERS,
  channelTypeName,
  formatPrice,
  listedPrices,
  ownersOf,
  PRICE_COLUMNS,
  PRICE_ORDERS,
  priceOf,
  type ListedPrice,
  type PriceCurrency,
  type PriceOrder,
} from './pricing-model.js';

const isOrder = (value: string | null): value is PriceOrder => PRICE_ORDERS.some((order) => order === value);

/**
 * The price list (GET /api/pricing): every model the user's group can use with its prices per 1M
 * tokens (or per image, per 1M characters, per 1M transcript tokens) in dollars or in quota, its
 * owner and channel types; searchable, filtered by owner, sorted. Signed-in users see their group's;
 * visitors the default group's when the list is public (PricingPublic), else they are sent to log in.
 */
export const PricingPage = () => {
  const { t } = useTranslation();
  const { user } = useSession();
  const status = useStatus();
  const location = useLocation();
  const allowed = user !== undefined || status?.pricing_public === true;
  const inCurrency = useStoredValue('display_in_currency') ?? true;
  const [currency, setCurrency] = useState<PriceCurrency>(inCurrency ? 'usd' : 'quota');
  const [search, setSearch] = useState('');
  const [owner, setOwner] = useState(ALL_OWNERS);
  const [order, setOrder] = useState<PriceOrder>('name');
  const pricing = useQuery({ queryKey: ['pricing', user?.id ?? 0], queryFn: getPricing, enabled: allowed });
  const rows = useMemo(() => pricing.data?.data ?? [], [pricing.data]);
  const owners = useMemo(() => ownersOf(rows), [rows]);
  // A visitor's first load: the status record (is the list public?) is still on its way.
  if (!user && status === undefined) return <ListState loading empty={false} children={null} />;
  if (!allowed) return <Navigate to="/login" replace state={{ from: location }} />;

  const shown = listedPrices(rows, { search, owner, order });
  const group = pricing.data?.group ?? 'default';
  const columns: ListColumn<ListedPrice>[] = [
    {
      label: t('pricing.column.model'),
      cell: (row) => (
        <Group gap={4} wrap="wrap">
          <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }} data-testid="pricing-model">
            {row.model_name}
          </Text>
          {!row.priced && (
            <Tooltip label={t('pricing.unpricedHint')} multiline maw={260}>
              <Badge size="xs" variant="light" color="orange">
                {t('pricing.unpriced')}
              </Badge>
            </Tooltip>
          )}
        </Group>
      ),
    },
    { label: t('pricing.column.owner'), cell: (row) => row.owner_by },
    {
      label: t('pricing.column.channelTypes'),
      cell: (row) => (
        <Group gap={4} wrap="wrap">
          {row.channel_types.map((type) => (
            <Badge key={type} size="xs" variant="outline" color="gray" style={{ textTransform: 'none' }}>
              {channelTypeName(type)}
            </Badge>
          ))}
        </Group>
      ),
    },
    {
      label: t('pricing.column.billedBy'),
      cell: (row) => (
        <Text span size="xs" c="dimmed">
          {t(`pricing.unit.${row.billed_by}`)}
        </Text>
      ),
    },
    ...PRICE_COLUMNS.map((column): ListColumn<ListedPrice> => ({
      label: t(`pricing.column.${column}`),
      nowrap: true,
      cell: (row) => (
        <span data-testid={`pricing-${column}`}>{formatPrice(priceOf(row, currency, column), currency)}</span>
      ),
    })),
  ];

  return (
    <PageCard title={t('pricing.title')} testId="pricing-page">
      <Stack gap={4}>
        <Text size="sm">{t('pricing.intro')}</Text>
        <Text size="sm" c="dimmed" data-testid="pricing-group">
          {user
            ? t('pricing.group', { group, ratio: pricing.data?.group_ratio[group] ?? 1 })
            : t('pricing.visitor')}
        </Text>
      </Stack>
      <Group gap="sm" align="flex-end" wrap="wrap">
        <TextInput
          aria-label={t('pricing.search')}
          placeholder={t('pricing.search')}
          leftSection={<IconSearch size={16} />}
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          style={{ flex: '1 1 14rem' }}
          data-testid="pricing-search"
        />
        <Select
          aria-label={t('pricing.owner')}
          data={[
            { value: ALL_OWNERS, label: t('pricing.allOwners') },
            ...owners.map((name) => ({ value: name, label: name })),
          ]}
          value={owner}
          onChange={(value) => setOwner(value ?? ALL_OWNERS)}
          allowDeselect={false}
          w={{ base: '100%', xs: 180 }}
          data-testid="pricing-owner"
        />
        <Select
          aria-label={t('pricing.order.label')}
          data={PRICE_ORDERS.map((value) => ({ value, label: t(`pricing.order.${value}`) }))}
          value={order}
          onChange={(value) => isOrder(value) && setOrder(value)}
          allowDeselect={false}
          w={{ base: '100%', xs: 160 }}
          data-testid="pricing-order"
        />
        <SegmentedControl
          aria-label={t('pricing.currency.label')}
          value={currency}
          onChange={(value) => setCurrency(value === 'quota' ? 'quota' : 'usd')}
          data={[
            { value: 'usd', label: t('pricing.currency.usd') },
            { value: 'quota', label: t('pricing.currency.quota') },
          ]}
          data-testid="pricing-currency"
        />
      </Group>
      <ListState loading={pricing.isPending && allowed} empty={shown.length === 0}>
        <Text size="xs" c="dimmed">
          {t('pricing.count', { count: shown.length })}
        </Text>
        <ListRows
          items={shown}
          columns={columns}
          attributes={(row) => ({
            'data-testid': 'pricing-row',
            'data-model': row.model_name,
            'data-types': row.channel_types.join(','),
          })}
        />
      </ListState>
    </PageCard>
  );
};
