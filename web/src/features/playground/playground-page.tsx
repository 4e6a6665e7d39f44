import { Button, Collapse, Grid, Stack, Text } from '@mantine/core';
import { IconAdjustments } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PageCard } from '../../components/page-card.js';
import { downloadText } from '../../lib/api-client.js';
import { useSession } from '../../lib/session.js';
import type { StoredConversation } from '../../lib/stored-conversation.js';
import { showSuccess } from '../../lib/toast.js';
import { usePhone } from '../../lib/use-phone.js';
import { takesImages } from './chat-request.js';
import { Composer } from './composer.js';
import { ConversationBar } from './conversation-bar.js';
import { DEFAULT_SETTINGS, exportJson, newConversation } from './conversation-model.js';
import { ConversationTurn } from './conversation-turn.js';
import { createSessionKey, getPricing, keyModels, listKeys } from './playground-api.js';
import { PlaygroundSettings } from './playground-settings.js';
import { replyPriceOf } from './reply-cost.js';
import { useConversations } from './use-conversations.js';
import { usePlaygroundChat } from './use-playground-chat.js';

/**
 * The playground (issue 19): chat with a model through Sluice's own /v1 with one of the user's keys
 * (or a session key the page creates), in a client format of choice, streamed; each reply shows its
 * tokens, its cost and its times. Conversations are kept in the browser and exported as JSON.
 */
export const PlaygroundPage = () => {
  const { t } = useTranslation();
  const { user } = useSession();
  const userId = user?.id ?? 0;
  const phone = usePhone();
  const queryClient = useQueryClient();
  const [settingsOpen, setSettingsOpen] = useState(false);
  const { conversations, save, remove } = useConversations(userId);
  const [conversation, setConversation] = useState<StoredConversation>(
    () => conversations[0] ?? newConversation(userId, DEFAULT_SETTINGS),
  );
  const [keyId, setKeyId] = useState<number | undefined>(undefined);

  const keys = useQuery({ queryKey: ['playground', 'keys'], queryFn: listKeys });
  const keyList = keys.data ?? [];
  const token = keyList.find((entry) => entry.id === keyId) ?? keyList[0];
  const models = useQuery({
    queryKey: ['playground', 'models', token?.id],
    queryFn: () => keyModels(token!.key),
    enabled: token !== undefined,
  });
  const pricing = useQuery({ queryKey: ['playground', 'pricing'], queryFn: getPricing });
  const modelList = models.data ?? [];
  const { settings } = conversation;

  // A model the key may not use (another key, an old conversation) gives way to the key's first.
  useEffect(() => {
    if (models.data && models.data.length > 0 && !models.data.includes(settings.model))
      setConversation((current) => ({
        ...current,
        settings: { ...current.settings, model: models.data[0]! },
      }));
  }, [models.data, settings.model]);

  const sessionKey = useMutation({
    mutationFn: () => createSessionKey(new Date()),
    onSuccess: async (created) => {
      showSuccess(t('playground.sessionKeyCreated', { name: created.name }));
      setKeyId(created.id);
      await queryClient.invalidateQueries({ queryKey: ['playground', 'keys'] });
      await queryClient.invalidateQueries({ queryKey: ['tokens'] });
    },
  });

  const chat = usePlaygroundChat(conversation, setConversation, {
    key: token?.key,
    priceOf: (model) => (pricing.data ? replyPriceOf(pricing.data, model) : undefined),
    save,
  });
  const ready = token !== undefined && settings.model !== '';
  // While a reply streams, the end of the conversation (the composer) stays in view.
  const end = useRef<HTMLDivElement>(null);
  const lastText = conversation.turns.at(-1)?.text.length ?? 0;
  useEffect(() => {
    if (chat.streaming) end.current?.scrollIntoView({ block: 'nearest' });
  }, [chat.streaming, lastText]);
  const lastReply = conversation.turns.findLastIndex((turn) => turn.role === 'assistant');

  const settingsPanel = (
    <Stack gap="sm">
      <ConversationBar
        conversations={conversations}
        current={conversation}
        disabled={chat.streaming}
        onPick={setConversation}
        onNew={() => setConversation(newConversation(userId, settings))}
        onDelete={() => {
          remove(conversation.id);
          setConversation(newConversation(userId, settings));
        }}
        onExport={() => downloadText(exportJson(conversations), 'playground-conversations.json')}
      />
      <PlaygroundSettings
        keys={keyList}
        keyId={token?.id}
        onKey={setKeyId}
        onSessionKey={() => sessionKey.mutate()}
        creatingKey={sessionKey.isPending}
        models={modelList}
        settings={settings}
        onChange={(next) => setConversation({ ...conversation, settings: next })}
      />
    </Stack>
  );

  return (
    <PageCard title={t('playground.title')} testId="playground-page">
      <Text size="sm" c="dimmed">
        {t('playground.intro')}
      </Text>
      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 4 }}>
          {phone ? (
            <Stack gap="xs">
              <Button
                variant="default"
                leftSection={<IconAdjustments size={16} />}
                onClick={() => setSettingsOpen((open) => !open)}
                data-testid="playground-settings-toggle"
              >
                {t('playground.settings')}
              </Button>
              <Collapse expanded={settingsOpen}>{settingsPanel}</Collapse>
            </Stack>
          ) : (
            settingsPanel
          )}
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 8 }}>
          <Stack gap="sm" data-testid="playground-chat">
            {conversation.turns.length === 0 && (
              <Text size="sm" c="dimmed" ta="center" py="lg">
                {ready ? t('playground.empty') : t('playground.pickFirst')}
              </Text>
            )}
            {conversation.turns.map((turn, index) => (
              <ConversationTurn
                key={turn.id}
                turn={turn}
                streaming={chat.streaming && index === conversation.turns.length - 1}
                onRegenerate={
                  !chat.streaming && ready && index === lastReply ? () => void chat.regenerate() : undefined
                }
                onResend={
                  !chat.streaming && ready && turn.role === 'user'
                    ? (text) => void chat.resend(turn.id, text)
                    : undefined
                }
              />
            ))}
            <Composer
              disabled={!ready}
              streaming={chat.streaming}
              imagesAllowed={takesImages(settings.model)}
              onSend={(text, images) => void chat.send(text, images)}
              onStop={chat.stop}
            />
            <div ref={end} />
          </Stack>
        </Grid.Col>
      </Grid>
    </PageCard>
  );
};
