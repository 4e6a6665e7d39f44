import { ActionIcon, Group, Select, Tooltip } from '@mantine/core';
import { IconDownload, IconPlus, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { StoredConversation } from '../../lib/stored-conversation.js';

/** The kept conversations: pick one, start a new one, delete this one, export them all as JSON. */
export const ConversationBar = ({
  conversations,
  current,
  onPick,
  onNew,
  onDelete,
  onExport,
  disabled,
}: {
  conversations: readonly StoredConversation[];
  current: StoredConversation;
  onPick: (conversation: StoredConversation) => void;
  onNew: () => void;
  onDelete: () => void;
  onExport: () => void;
  disabled: boolean;
}) => {
  const { t } = useTranslation();
  const listed = conversations.some((conversation) => conversation.id === current.id)
    ? conversations
    : [current, ...conversations];
  const label = (conversation: StoredConversation) => conversation.title || t('playground.newConversation');
  return (
    <Group gap="xs" wrap="nowrap" align="flex-end">
      <Select
        label={t('playground.conversation')}
        style={{ flex: 1, minWidth: 0 }}
        data={listed.map((conversation) => ({ value: conversation.id, label: label(conversation) }))}
        value={current.id}
        onChange={(id) => {
          const picked = conversations.find((conversation) => conversation.id === id);
          if (picked) onPick(picked);
        }}
        allowDeselect={false}
        disabled={disabled}
        data-testid="playground-conversation"
      />
      <Tooltip label={t('playground.newConversation')} withArrow>
        <ActionIcon
          variant="default"
          size="lg"
          aria-label={t('playground.newConversation')}
          onClick={onNew}
          disabled={disabled}
          data-testid="playground-new"
        >
          <IconPlus size={16} />
        </ActionIcon>
      </Tooltip>
      <Tooltip label={t('playground.deleteConversation')} withArrow>
        <ActionIcon
          variant="default"
          size="lg"
          color="red"
          aria-label={t('playground.deleteConversation')}
          onClick={onDelete}
          disabled={disabled}
          data-testid="playground-delete"
        >
          <IconTrash size={16} />
        </ActionIcon>
      </Tooltip>
      <Tooltip label={t('playground.export')} withArrow>
        <ActionIcon
          variant="default"
          size="lg"
          aria-label={t('playground.export')}
          onClick={onExport}
          disabled={conversations.length === 0}
          data-testid="playground-export"
        >
          <IconDownload size={16} />
        </ActionIcon>
      </Tooltip>
    </Group>
  );
};
