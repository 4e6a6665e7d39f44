import { Badge, Group } from '@mantine/core';
import { groupColor, groupsOf } from '../lib/format.js';

/** A user's or channel's groups as badges (vip/pro yellow, svip/premium red). */
export const GroupBadges = ({ groups }: { groups: string }) => (
  <Group gap={4}>
    {groupsOf(groups).map((group) => (
      <Badge key={group} color={groupColor(group)} variant="light" size="sm">
        {group}
      </Badge>
    ))}
  </Group>
);
