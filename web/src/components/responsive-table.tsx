import { Table } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A table that never widens the page: below `minWidth` it scrolls horizontally inside its card
 * (spec §1 mobile: usable at 390 px).
 */
export const ResponsiveTable = ({ minWidth, children }: { minWidth: number; children: ReactNode }) => (
  <Table.ScrollContainer minWidth={minWidth} type="native">
    <Table striped highlightOnHover verticalSpacing="xs" fz="sm">
      {children}
    </Table>
  </Table.ScrollContainer>
);
