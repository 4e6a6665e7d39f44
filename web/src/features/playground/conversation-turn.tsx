import {
  ActionIcon,
  Alert,
  Badge,
  Box,
  Button,
  Group,
  Image,
  Paper,
  Stack,
  Text,
  Textarea,
  Tooltip,
} from '@mantine/core';
import { IconEdit, IconRefresh } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { StoredTurn } from '../../lib/stored-conversation.js';
import { ReplyMarkdown } from './reply-markdown.js';
import { ReplyStats } from './reply-stats.js';

export interface TurnActions {
  /** Regenerate (offered on the last reply only). */
  readonly onRegenerate?: (() => void) | undefined;
  /** Edit and resend (offered on a user's turn while nothing streams). */
  readonly onResend?: ((text: string) => void) | undefined;
}

const UserTurn = ({ turn, onResend }: { turn: StoredTurn } & TurnActions) => {
  const { t } = useTranslation();
  const [draft, setDraft] = useState<string | undefined>(undefined);
  if (draft !== undefined)
    return (
      <Stack gap="xs">
        <Textarea
          autosize
          minRows={2}
          maxRows={12}
          value={draft}
          onChange={(event) => setDraft(event.currentTarget.value)}
          data-testid="playground-edit-text"
        />
        <Group gap="xs" justify="flex-end">
          <Button size="compact-sm" variant="default" onClick={() => setDraft(undefined)}>
            {t('common.cancel')}
          </Button>
          <Button
            size="compact-sm"
            disabled={draft.trim() === ''}
            onClick={() => {
              onResend?.(draft);
              setDraft(undefined);
            }}
            data-testid="playground-resend"
          >
            {t('playground.resend')}
          </Button>
        </Group>
      </Stack>
    );
  return (
    <Stack gap={6}>
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Text size="xs" fw={600} c="dimmed">
          {t('playground.you')}
        </Text>
        {onResend && (
          <Tooltip label={t('playground.edit')} withArrow>
            <ActionIcon
              variant="subtle"
              size="sm"
              aria-label={t('playground.edit')}
              onClick={() => setDraft(turn.text)}
              data-testid="playground-edit"
            >
              <IconEdit size={14} />
            </ActionIcon>
          </Tooltip>
        )}
      </Group>
      <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
        {turn.text}
      </Text>
      {turn.images && turn.images.length > 0 && (
        <Group gap="xs">
          {turn.images.map((url, index) => (
            <Image key={index} src={url} w={72} h={72} fit="cover" radius="sm" alt="" />
          ))}
        </Group>
      )}
    </Stack>
  );
};

const ReplyTurn = ({
  turn,
  onRegenerate,
  streaming,
}: { turn: StoredTurn; streaming: boolean } & TurnActions) => {
  const { t } = useTranslation();
  return (
    <Stack gap={6}>
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Group gap={6} wrap="wrap">
          <Text size="xs" fw={600} c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            {turn.model}
          </Text>
          {turn.stopped && (
            <Badge size="xs" color="orange" variant="light" data-testid="playground-stopped">
              {t('playground.stopped')}
            </Badge>
          )}
        </Group>
        {onRegenerate && (
          <Tooltip label={t('playground.regenerate')} withArrow>
            <ActionIcon
              variant="subtle"
              size="sm"
              aria-label={t('playground.regenerate')}
              onClick={onRegenerate}
              data-testid="playground-regenerate"
            >
              <IconRefresh size={14} />
            </ActionIcon>
          </Tooltip>
        )}
      </Group>
      {turn.reasoning && (
        <Box component="details" fz="xs" c="dimmed">
          <summary>{t('playground.reasoning')}</summary>
          <Text size="xs" c="dimmed" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
            {turn.reasoning}
          </Text>
        </Box>
      )}
      {turn.text !== '' && <ReplyMarkdown text={turn.text} />}
      {streaming && turn.text === '' && (
        <Text size="sm" c="dimmed">
          …
        </Text>
      )}
      {turn.error !== undefined && (
        <Alert color="red" p="xs" data-testid="playground-error">
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {t('playground.error', { message: turn.error })}
          </Text>
        </Alert>
      )}
      {turn.stats && <ReplyStats stats={turn.stats} />}
    </Stack>
  );
};

/** One turn of the conversation: the user's message (editable) or a reply (Markdown, figures, regenerate). */
export const ConversationTurn = ({
  turn,
  streaming,
  ...actions
}: { turn: StoredTurn; streaming: boolean } & TurnActions) => (
  <Paper
    withBorder
    p="sm"
    bg={turn.role === 'user' ? 'var(--mantine-color-default-hover)' : undefined}
    data-testid={turn.role === 'user' ? 'playground-user-turn' : 'playground-reply'}
    data-streaming={streaming || undefined}
  >
    {turn.role === 'user' ? (
      <UserTurn turn={turn} {...actions} />
    ) : (
      <ReplyTurn turn={turn} streaming={streaming} {...actions} />
    )}
  </Paper>
);
