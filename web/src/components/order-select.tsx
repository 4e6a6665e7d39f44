import { Select } from '@mantine/core';
import { orderOf } from '../lib/list-orders.js';

/**
 * A list's sort order box: one option per order of `orders` (contract/src/list-orders.ts), labelled by
 * `labels`, which must name every one of them.
 */
export const OrderSelect = <O extends string>({
  label,
  orders,
  labels,
  value,
  onChange,
  disabled,
  testId,
}: {
  label: string;
  orders: readonly ('' | O)[];
  labels: Readonly<Record<'' | O, string>>;
  value: '' | O;
  onChange: (order: '' | O) => void;
  disabled?: boolean;
  testId: string;
}) => (
  <Select
    maw={{ base: '100%', xs: 220 }}
    aria-label={label}
    value={value}
    allowDeselect={false}
    disabled={disabled}
    onChange={(next) => onChange(orderOf(orders, next))}
    data={orders.map((order) => ({ value: order, label: labels[order] }))}
    data-testid={testId}
  />
);
