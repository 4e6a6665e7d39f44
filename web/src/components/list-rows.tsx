import { Group, Paper, Stack, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { usePhone } from '../lib/use-phone.js';

/** One column of a list: its heading and its cell, shown as a table column or a card line. */
export interface ListColumn<T> {
  readonly label: ReactNode;
  readonly cell: (item: T) => ReactNode;
  /** Kept on one line in the table (dates, amounts). */
  readonly nowrap?: boolean;
}

/** `data-*` attributes of a row (or card): its test id, its id, its name. */
export type RowAttributes = Readonly<Record<`data-${string}`, string | number>>;

export interface ListRowsProps<T extends { readonly id: number }> {
  readonly items: readonly T[];
  readonly columns: readonly ListColumn<T>[];
  /** The row's actions: the table's last column, the bottom of a card (none: a read-only list). */
  readonly actions?: (item: T) => ReactNode;
  readonly attributes: (item: T) => RowAttributes;
}

/**
 * The rows of a list screen. On a desktop a table that fits its card (cells wrap; nothing scrolls
 * sideways at 1280 px); on a phone (≤ 600 px) one card per row, a line per column and the actions
 * below, wrapping, so every action is on screen.
 */
export const ListRows = <T extends { readonly id: number }>({
  items,
  columns,
  actions,
  attributes,
}: ListRowsProps<T>) => {
  const { t } = useTranslation();
  const phone = usePhone();
  if (phone)
    return (
      <Stack gap="sm" data-testid="list-cards">
        {items.map((item) => (
          <Paper key={item.id} withBorder p="sm" radius="md" {...attributes(item)}>
            <Stack gap={6}>
              {columns.map((column, index) => (
                <Group key={index} justify="space-between" align="flex-start" gap="xs" wrap="nowrap">
                  <Text size="xs" c="dimmed" style={{ flexShrink: 0 }}>
                    {column.label}
                  </Text>
                  <Text component="div" size="sm" ta="right" miw={0} style={{ overflowWrap: 'anywhere' }}>
                    {column.cell(item)}
                  </Text>
                </Group>
              ))}
              {actions && (
                <Group gap={6} wrap="wrap" pt={4} aria-label={t('common.actions')}>
                  {actions(item)}
                </Group>
              )}
            </Stack>
          </Paper>
        ))}
      </Stack>
    );
  return (
    <Table striped highlightOnHover verticalSpacing="xs" horizontalSpacing={8} fz="sm">
      <Table.Thead>
        <Table.Tr>
          {columns.map((column, index) => (
            <Table.Th key={index}>{column.label}</Table.Th>
          ))}
          {actions && <Table.Th>{t('common.actions')}</Table.Th>}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {items.map((item) => (
          <Table.Tr key={item.id} {...attributes(item)}>
            {columns.map((column, index) => (
              <Table.Td key={index} style={column.nowrap ? { whiteSpace: 'nowrap' } : undefined}>
                {column.cell(item)}
              </Table.Td>
            ))}
            {actions && <Table.Td>{actions(item)}</Table.Td>}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
};
