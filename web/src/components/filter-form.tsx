import { Button, Group } from '@mantine/core';
import { IconDownload, IconSearch } from '@tabler/icons-react';
import { useState, type ReactNode } from 'react';

/** The values of a filter form and a setter for one of them. */
export const useFilterState = <T extends object>(initial: T) => {
  const [form, setForm] = useState(initial);
  const set = <K extends keyof T>(key: K, value: T[K]) =>
    setForm((current) => ({ ...current, [key]: value }));
  return { form, set };
};

/**
 * A filter form (logs, audit log): its fields, then the search button (submits) and the CSV export
 * of the same filters. Test ids: `<prefix>-filters`, `<prefix>-search`, `<prefix>-export`.
 */
export const FilterForm = ({
  prefix,
  onSearch,
  onExport,
  exporting,
  searchLabel,
  exportLabel,
  children,
}: {
  prefix: string;
  onSearch: () => void;
  onExport: () => void;
  exporting: boolean;
  searchLabel: string;
  exportLabel: string;
  children: ReactNode;
}) => (
  <form
    onSubmit={(event) => {
      event.preventDefault();
      onSearch();
    }}
    data-testid={`${prefix}-filters`}
  >
    {children}
    <Group mt="sm" gap="xs">
      <Button type="submit" leftSection={<IconSearch size={16} />} data-testid={`${prefix}-search`}>
        {searchLabel}
      </Button>
      <Button
        variant="default"
        leftSection={<IconDownload size={16} />}
        loading={exporting}
        onClick={onExport}
        data-testid={`${prefix}-export`}
      >
        {exportLabel}
      </Button>
    </Group>
  </form>
);
