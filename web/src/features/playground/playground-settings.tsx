import { Button, Group, NumberInput, Select, Stack, Text, Textarea } from '@mantine/core';
import { IconKey } from '@tabler/icons-react';
import type { Token } from '@sluice/contract/schemas/token';
import { useTranslation } from 'react-i18next';
import type { ConversationSettings } from '../../lib/stored-conversation.js';
import { CLIENT_FORMATS, REASONING_EFFORTS } from './chat-request.js';
import { sessionKeyName } from './playground-api.js';

const NO_EFFORT = '';

const numberOrUndefined = (value: string | number): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/** The request's settings: key (or a new session key), model, client format, system prompt and sampling. */
export const PlaygroundSettings = ({
  keys,
  keyId,
  onKey,
  onSessionKey,
  creatingKey,
  models,
  settings,
  onChange,
}: {
  keys: readonly Token[];
  keyId: number | undefined;
  onKey: (id: number | undefined) => void;
  onSessionKey: () => void;
  creatingKey: boolean;
  models: readonly string[];
  settings: ConversationSettings;
  onChange: (settings: ConversationSettings) => void;
}) => {
  const { t } = useTranslation();
  const set = (patch: Partial<ConversationSettings>) => onChange({ ...settings, ...patch });
  return (
    <Stack gap="sm">
      <Select
        label={t('playground.key')}
        placeholder={t('playground.keyPlaceholder')}
        data={keys.map((token) => ({ value: String(token.id), label: token.name }))}
        value={keyId === undefined ? null : String(keyId)}
        onChange={(value) => onKey(value === null ? undefined : Number(value))}
        searchable
        nothingFoundMessage={t('playground.noKeys')}
        comboboxProps={{ withinPortal: true }}
        data-testid="playground-key"
      />
      <Group gap="xs" wrap="wrap">
        <Button
          size="compact-sm"
          variant="light"
          leftSection={<IconKey size={14} />}
          loading={creatingKey}
          onClick={onSessionKey}
          data-testid="playground-session-key"
        >
          {t('playground.sessionKey')}
        </Button>
        <Text size="xs" c="dimmed">
          {keys.length === 0
            ? t('playground.noKeys')
            : t('playground.sessionKeyHint', { name: sessionKeyName(new Date()) })}
        </Text>
      </Group>
      <Select
        label={t('playground.model')}
        placeholder={t('playground.modelPlaceholder')}
        // Mounted again once a model is picked by the page (the key's first): Mantine's Select can
        // miss a value that arrives by itself just after its options (the form value set, the
        // field blank), seen on a loaded machine; mounted with both, it shows the model's name.
        key={settings.model === '' ? 'unpicked' : 'picked'}
        data={[...models]}
        value={settings.model === '' ? null : settings.model}
        onChange={(value) => set({ model: value ?? '' })}
        searchable
        nothingFoundMessage={t('playground.noModels')}
        comboboxProps={{ withinPortal: true }}
        data-testid="playground-model"
      />
      <Select
        label={t('playground.format')}
        data={CLIENT_FORMATS.map((format) => ({ value: format, label: t(`playground.formats.${format}`) }))}
        value={settings.format}
        onChange={(value) => set({ format: value ?? 'openai' })}
        allowDeselect={false}
        data-testid="playground-format"
      />
      <Textarea
        label={t('playground.system')}
        autosize
        minRows={2}
        maxRows={8}
        value={settings.system}
        onChange={(event) => set({ system: event.currentTarget.value })}
        data-testid="playground-system"
      />
      <Group grow gap="xs" align="flex-start">
        <NumberInput
          label={t('playground.temperature')}
          placeholder={t('playground.unset')}
          min={0}
          max={2}
          step={0.1}
          decimalScale={2}
          value={settings.temperature ?? ''}
          onChange={(value) => set({ temperature: numberOrUndefined(value) })}
          data-testid="playground-temperature"
        />
        <NumberInput
          label={t('playground.maxTokens')}
          placeholder={t('playground.unset')}
          min={1}
          step={256}
          allowDecimal={false}
          value={settings.maxTokens ?? ''}
          onChange={(value) => set({ maxTokens: numberOrUndefined(value) })}
          data-testid="playground-max-tokens"
        />
      </Group>
      <Select
        label={t('playground.effort')}
        data={[
          { value: NO_EFFORT, label: t('playground.unset') },
          ...REASONING_EFFORTS.map((effort) => ({ value: effort, label: t(`playground.efforts.${effort}`) })),
        ]}
        value={settings.effort ?? NO_EFFORT}
        onChange={(value) => set({ effort: value === NO_EFFORT || value === null ? undefined : value })}
        allowDeselect={false}
        data-testid="playground-effort"
      />
    </Stack>
  );
};
