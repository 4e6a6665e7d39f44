import { NumberInput, Select, SimpleGrid, TextInput } from '@mantine/core';
import { LOG_TYPE } from '@sluice/contract/statuses';
import { useTranslation } from 'react-i18next';
import { FilterForm, useFilterState } from '../../components/filter-form.js';
import type { LogFilters } from './log-api.js';
import { fromLocalInput, LOG_CLIENT_FORMATS, LOG_TYPES, toLocalInput } from './log-filter-model.js';

/** The Select's value for "any format" (the filter's ''). */
const ANY_FORMAT = 'all';

/** The filter form: type, client format, token, model, time range, and for admins username and channel. */
export const LogFilterForm = ({
  initial,
  admin,
  onApply,
  onExport,
  exporting,
}: {
  initial: LogFilters;
  admin: boolean;
  onApply: (filters: LogFilters) => void;
  onExport: (filters: LogFilters) => void;
  exporting: boolean;
}) => {
  const { t } = useTranslation();
  const { form, set } = useFilterState(initial);
  return (
    <FilterForm
      prefix="log"
      onSearch={() => onApply(form)}
      onExport={() => onExport(form)}
      exporting={exporting}
      searchLabel={t('log.query')}
      exportLabel={t('log.exportCsv')}
    >
      <SimpleGrid cols={{ base: 1, xs: 2, md: admin ? 4 : 3 }} spacing="sm" verticalSpacing="xs">
        <TextInput
          label={t('log.tokenName')}
          value={form.token_name}
          onChange={(event) => set('token_name', event.currentTarget.value)}
        />
        <TextInput
          label={t('log.modelName')}
          value={form.model_name}
          onChange={(event) => set('model_name', event.currentTarget.value)}
        />
        <Select
          label={t('log.type')}
          value={String(form.type)}
          allowDeselect={false}
          onChange={(value) => set('type', Number(value ?? LOG_TYPE.unknown))}
          data={LOG_TYPES.map((type) => ({ value: String(type.value), label: t(`log.types.${type.key}`) }))}
          data-testid="log-type"
        />
        <Select
          label={t('log.clientFormat')}
          value={form.client_format || ANY_FORMAT}
          allowDeselect={false}
          onChange={(value) =>
            set('client_format', LOG_CLIENT_FORMATS.find((format) => format.value === value)?.value ?? '')
          }
          data={[
            { value: ANY_FORMAT, label: t('log.formats.all') },
            ...LOG_CLIENT_FORMATS.map((format) => ({
              value: format.value,
              label: t(`log.formats.${format.value}`),
            })),
          ]}
          data-testid="log-client-format"
        />
        <TextInput
          type="datetime-local"
          label={t('log.startTime')}
          value={toLocalInput(form.start_timestamp)}
          onChange={(event) => set('start_timestamp', fromLocalInput(event.currentTarget.value))}
        />
        <TextInput
          type="datetime-local"
          label={t('log.endTime')}
          value={toLocalInput(form.end_timestamp)}
          onChange={(event) => set('end_timestamp', fromLocalInput(event.currentTarget.value))}
        />
        {admin && (
          <>
            <TextInput
              label={t('log.username')}
              value={form.username}
              onChange={(event) => set('username', event.currentTarget.value)}
              data-testid="log-username"
            />
            <NumberInput
              label={t('log.channelId')}
              value={form.channel || ''}
              min={0}
              allowDecimal={false}
              onChange={(value) => set('channel', typeof value === 'number' ? value : 0)}
              data-testid="log-channel"
            />
          </>
        )}
      </SimpleGrid>
    </FilterForm>
  );
};
