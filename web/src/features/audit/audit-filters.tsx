import { Select, SimpleGrid, TextInput } from '@mantine/core';
import { AUDIT_ACTIONS, AUDIT_OBJECTS } from '@sluice/contract/schemas/audit';
import { useTranslation } from 'react-i18next';
import { FilterForm, useFilterState } from '../../components/filter-form.js';
import { fromLocalInput, toLocalInput } from '../../lib/local-time-input.js';
import type { AuditFilters } from './audit-api.js';

/** The Select's value for "any" (the filter's ''). */
const ANY = 'all';

/** The filter form of the audit screen: who, object type, action, time range; search and CSV export. */
export const AuditFilterForm = ({
  initial,
  onApply,
  onExport,
  exporting,
}: {
  initial: AuditFilters;
  onApply: (filters: AuditFilters) => void;
  onExport: (filters: AuditFilters) => void;
  exporting: boolean;
}) => {
  const { t } = useTranslation();
  const { form, set } = useFilterState(initial);
  return (
    <FilterForm
      prefix="audit"
      onSearch={() => onApply(form)}
      onExport={() => onExport(form)}
      exporting={exporting}
      searchLabel={t('audit.search')}
      exportLabel={t('audit.exportCsv')}
    >
      <SimpleGrid cols={{ base: 1, xs: 2, md: 5 }} spacing="sm" verticalSpacing="xs">
        <TextInput
          label={t('audit.who')}
          value={form.username}
          onChange={(event) => set('username', event.currentTarget.value)}
          data-testid="audit-username"
        />
        <Select
          label={t('audit.object')}
          value={form.object_type || ANY}
          allowDeselect={false}
          onChange={(value) => set('object_type', AUDIT_OBJECTS.find((object) => object === value) ?? '')}
          data={[
            { value: ANY, label: t('audit.any') },
            ...AUDIT_OBJECTS.map((object) => ({ value: object, label: t(`audit.objects.${object}`) })),
          ]}
          data-testid="audit-object"
        />
        <Select
          label={t('audit.action')}
          value={form.action || ANY}
          allowDeselect={false}
          onChange={(value) => set('action', AUDIT_ACTIONS.find((action) => action === value) ?? '')}
          data={[
            { value: ANY, label: t('audit.any') },
            ...AUDIT_ACTIONS.map((action) => ({ value: action, label: t(`audit.actions.${action}`) })),
          ]}
          data-testid="audit-action"
        />
        <TextInput
          type="datetime-local"
          label={t('audit.from')}
          value={toLocalInput(form.start_timestamp)}
          onChange={(event) => set('start_timestamp', fromLocalInput(event.currentTarget.value))}
          data-testid="audit-from"
        />
        <TextInput
          type="datetime-local"
          label={t('audit.to')}
          value={toLocalInput(form.end_timestamp)}
          onChange={(event) => set('end_timestamp', fromLocalInput(event.currentTarget.value))}
          data-testid="audit-to"
        />
      </SimpleGrid>
    </FilterForm>
  );
};
