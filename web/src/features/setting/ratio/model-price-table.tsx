import { Alert, Badge, Button, Group, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListRows, type ListColumn } from '../../../components/list-rows.js';
import { Pager } from '../../../components/pager.js';
import { getOptionDefaults, getServedModels } from '../options/option-api.js';
import { ModelPriceDialog } from './model-price-dialog.js';
import {
  defaultMap,
  editRow,
  filterRows,
  formatRatio,
  formatUsd,
  missingCount,
  priceRows,
  resetRow,
  rowPrices,
  ruleCompletion,
  type PriceFilter,
  type PriceMaps,
  type PriceRow,
} from './model-price-model.js';

const PAGE_SIZE = 20;
const FILTERS: readonly PriceFilter[] = ['all', 'changed', 'missing'];
const STATE_COLORS = { default: 'gray', custom: 'blue', missing: 'red' } as const;

/** The shipped defaults and the channels' models (each read once per visit of the tab). */
const usePriceData = () => {
  const defaults = useQuery({
    queryKey: ['option-defaults'],
    queryFn: getOptionDefaults,
    staleTime: Infinity,
  });
  const served = useQuery({ queryKey: ['served-models'], queryFn: getServedModels });
  const maps = useMemo<PriceMaps>(() => {
    const value = (key: string) => defaults.data?.find((option) => option.key === key)?.value;
    return { model: defaultMap(value('ModelRatio')), completion: defaultMap(value('CompletionRatio')) };
  }, [defaults.data]);
  return { defaults: maps, served: served.data ?? [] };
};

const dash = (value: string | undefined) => value ?? '—';

/**
 * The per-model price editor (as new-api offers beside the JSON): every model the ratio maps, the
 * shipped prices or the channels name, searchable, filtered to the changed ones or the served models
 * without a ratio; a row is edited in a dialog or reset to its shipped default. It reads and rewrites
 * `maps`, the section's form state, so the JSON and the table never disagree.
 */
export const ModelPriceTable = ({
  maps,
  onChange,
}: {
  /** The form's ModelRatio and CompletionRatio, or undefined while either text is not a valid map. */
  maps: PriceMaps | undefined;
  onChange: (maps: PriceMaps) => void;
}) => {
  const { t } = useTranslation();
  const { defaults, served } = usePriceData();
  const [search, setSearch] = useState('');
  const [filter, setFilter] = useState<PriceFilter>('all');
  const [page, setPage] = useState(0);
  const [size, setSize] = useState(PAGE_SIZE);
  const [editing, setEditing] = useState<string | undefined>();
  const rows = useMemo(() => (maps ? priceRows(maps, defaults, served) : []), [maps, defaults, served]);
  if (!maps)
    return (
      <Alert color="yellow" variant="light" data-testid="price-invalid">
        {t('ratioEditor.invalid')}
      </Alert>
    );

  const shown = filterRows(rows, search, filter);
  const pageCount = Math.max(1, Math.ceil(shown.length / size));
  const current = Math.min(page, pageCount - 1);
  const pageRows = shown.slice(current * size, (current + 1) * size);
  const typed = search.trim();
  const editedRow = rows.find((row) => row.model === editing);

  const columns: ListColumn<PriceRow>[] = [
    {
      label: t('ratioEditor.column.model'),
      cell: (row) => (
        <Group gap={4} wrap="wrap">
          <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }} data-testid="price-model">
            {row.model}
          </Text>
          <Badge size="xs" variant="light" color={STATE_COLORS[row.state]} data-testid="price-state">
            {t(`ratioEditor.state.${row.state}`)}
          </Badge>
          {row.served && (
            <Badge size="xs" variant="outline" color="teal">
              {t('ratioEditor.served')}
            </Badge>
          )}
        </Group>
      ),
    },
    {
      label: t('ratioEditor.column.modelRatio'),
      nowrap: true,
      cell: (row) => (
        <span data-testid="price-model-ratio-cell">
          {dash(row.modelRatio === undefined ? undefined : formatRatio(row.modelRatio))}
        </span>
      ),
    },
    {
      label: t('ratioEditor.column.completionRatio'),
      nowrap: true,
      cell: (row) =>
        row.completionRatio === undefined ? (
          <Text span size="sm" c="dimmed">
            {t('ratioEditor.rule', { ratio: formatRatio(row.ruleCompletion) })}
          </Text>
        ) : (
          formatRatio(row.completionRatio)
        ),
    },
    ...(['input', 'output'] as const).map((side): ListColumn<PriceRow> => ({
      label: t(`ratioEditor.column.${side}`),
      nowrap: true,
      cell: (row) => {
        const prices = rowPrices(row.modelRatio, row.completionRatio ?? row.ruleCompletion);
        return <span data-testid={`price-${side}`}>{dash(prices && formatUsd(prices[side]))}</span>;
      },
    })),
  ];

  return (
    <Stack gap="sm" data-testid="price-table">
      <Text size="sm" c="dimmed">
        {t('ratioEditor.intro')}
      </Text>
      <Group gap="sm" wrap="wrap" align="center">
        <TextInput
          value={search}
          onChange={(event) => {
            setSearch(event.currentTarget.value);
            setPage(0);
          }}
          placeholder={t('ratioEditor.search')}
          aria-label={t('ratioEditor.search')}
          leftSection={<IconSearch size={16} />}
          style={{ flex: '1 1 220px' }}
          data-testid="price-search"
        />
        <SegmentedControl
          value={filter}
          onChange={(value) => {
            setFilter(FILTERS.find((known) => known === value) ?? 'all');
            setPage(0);
          }}
          data={FILTERS.map((value) => ({
            value,
            label: t(`ratioEditor.filter.${value}`, { count: missingCount(rows) }),
          }))}
          data-testid="price-filter"
        />
      </Group>
      {typed !== '' && !rows.some((row) => row.model === typed) && (
        <Group>
          <Button variant="light" size="xs" onClick={() => setEditing(typed)} data-testid="price-add">
            {t('ratioEditor.add', { model: typed })}
          </Button>
        </Group>
      )}
      {pageRows.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="price-empty">
          {t('ratioEditor.empty')}
        </Text>
      ) : (
        <ListRows
          items={pageRows}
          columns={columns}
          attributes={(row) => ({
            'data-testid': 'price-row',
            'data-model': row.model,
            'data-state': row.state,
          })}
          actions={(row) => (
            <Group gap={6} wrap="nowrap">
              <Button
                size="compact-xs"
                variant="light"
                onClick={() => setEditing(row.model)}
                aria-label={t('ratioEditor.editLabel', { model: row.model })}
                data-testid="price-edit"
              >
                {t('ratioEditor.edit')}
              </Button>
              <Button
                size="compact-xs"
                variant="default"
                disabled={!row.resettable}
                onClick={() => onChange(resetRow(maps, defaults, row.model))}
                aria-label={t('ratioEditor.resetLabel', { model: row.model })}
                data-testid="price-reset"
              >
                {t('ratioEditor.reset')}
              </Button>
            </Group>
          )}
        />
      )}
      <Pager
        total={shown.length}
        page={current}
        pageCount={pageCount}
        size={size}
        onPage={setPage}
        onSize={(next) => {
          setSize(next);
          setPage(0);
        }}
      />
      {editing !== undefined && (
        <ModelPriceDialog
          key={editing}
          model={editing}
          initial={{
            modelRatio: editedRow?.modelRatio,
            completionRatio: editedRow?.completionRatio,
          }}
          ruleCompletion={editedRow?.ruleCompletion ?? ruleCompletion(editing)}
          onApply={(entries) => {
            onChange(editRow(maps, editing, entries));
            setEditing(undefined);
          }}
          onClose={() => setEditing(undefined)}
        />
      )}
    </Stack>
  );
};
