import { Alert, Checkbox, PasswordInput, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { IconInfoCircle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { enChannel } from '../../i18n/en/channel.js';
import {
  canBatch,
  hasComposedKey,
  isSecretConfigField,
  type ChannelFormState,
  type ConfigField,
} from './channel-form-model.js';

/** The fields that depend on the channel type (spec §9): notes, key, config, base URL, `other`. */

type FormText = Exclude<keyof (typeof enChannel)['channel']['form'], 'keyHints'>;
type KeyHint = keyof (typeof enChannel)['channel']['form']['keyHints'];

const MONOSPACE = { input: { fontFamily: 'var(--mantine-font-family-monospace)' } };

interface FieldText {
  readonly label: FormText;
  readonly placeholder: FormText;
}

/** Notes shown under the type: Azure deployments, Coze bots, Doubao endpoints, Proxy. */
const NOTES: Readonly<Record<number, FormText>> = {
  [CHANNEL_TYPE.azure]: 'azureNote',
  [CHANNEL_TYPE.coze]: 'cozeNote',
  [CHANNEL_TYPE.doubao]: 'doubaoNote',
  [CHANNEL_TYPE.proxy]: 'proxyTypeNote',
};

/** Key format hints of spec §5. */
const KEY_HINTS: Readonly<Record<number, KeyHint>> = {
  [CHANNEL_TYPE.baidu]: 'baidu',
  [CHANNEL_TYPE.xunfei]: 'spark',
  [CHANNEL_TYPE.fastGpt]: 'fastgpt',
  [CHANNEL_TYPE.tencent]: 'hunyuan',
};

const COMPOSED_FORMATS: Readonly<Record<number, string>> = {
  [CHANNEL_TYPE.aws]: 'AK|SK|Region',
  [CHANNEL_TYPE.vertexAi]: 'Region|Project ID|ADC JSON',
};

/** The meaning of `base_url` by type; AWS has none; every other type may set a proxy. */
const BASE_URL_FIELDS: Readonly<Record<number, FieldText | null>> = {
  [CHANNEL_TYPE.azure]: { label: 'azureEndpoint', placeholder: 'azureEndpointPlaceholder' },
  [CHANNEL_TYPE.custom]: { label: 'customBaseUrl', placeholder: 'customBaseUrlPlaceholder' },
  [CHANNEL_TYPE.fastGpt]: { label: 'privateDeployUrl', placeholder: 'privateDeployUrlPlaceholder' },
  [CHANNEL_TYPE.aws]: null,
};
const PROXY_FIELD: FieldText = { label: 'proxy', placeholder: 'proxyPlaceholder' };

/** The meaning of `other` by type (the Azure api version, the Qwen plugin, …). */
const OTHER_FIELDS: Readonly<Record<number, FieldText>> = {
  [CHANNEL_TYPE.azure]: { label: 'azureApiVersion', placeholder: 'azureApiVersionPlaceholder' },
  [CHANNEL_TYPE.ali]: { label: 'plugin', placeholder: 'pluginPlaceholder' },
  [CHANNEL_TYPE.xunfei]: { label: 'sparkVersion', placeholder: 'sparkVersionPlaceholder' },
  [CHANNEL_TYPE.aiProxyLibrary]: { label: 'knowledgeBaseId', placeholder: 'knowledgeBaseIdPlaceholder' },
};

interface ConfigInput extends FieldText {
  readonly field: ConfigField;
  readonly kind?: 'secret' | 'json';
}

/** The config sub-fields by type: AWS and Vertex AI compose the key from theirs. */
const CONFIG_INPUTS: Readonly<Record<number, readonly ConfigInput[]>> = {
  [CHANNEL_TYPE.aws]: [
    { field: 'region', label: 'region', placeholder: 'awsRegionPlaceholder' },
    { field: 'ak', label: 'ak', placeholder: 'akPlaceholder' },
    { field: 'sk', label: 'sk', placeholder: 'skPlaceholder', kind: 'secret' },
  ],
  [CHANNEL_TYPE.vertexAi]: [
    { field: 'region', label: 'region', placeholder: 'vertexRegionPlaceholder' },
    { field: 'vertex_ai_project_id', label: 'vertexProjectId', placeholder: 'vertexProjectId' },
    { field: 'vertex_ai_adc', label: 'vertexAdc', placeholder: 'vertexAdc', kind: 'json' },
  ],
  [CHANNEL_TYPE.coze]: [{ field: 'user_id', label: 'cozeUserId', placeholder: 'cozeUserIdPlaceholder' }],
  [CHANNEL_TYPE.cloudflare]: [{ field: 'user_id', label: 'accountId', placeholder: 'accountIdPlaceholder' }],
};

export interface TypeFieldsProps {
  readonly form: ChannelFormState;
  readonly editing: boolean;
  readonly set: <K extends keyof ChannelFormState>(key: K, value: ChannelFormState[K]) => void;
}

export const TypeNote = ({ type }: { type: number }) => {
  const { t } = useTranslation();
  const note = NOTES[type];
  if (!note) return null;
  return (
    <Alert variant="light" icon={<IconInfoCircle size={18} />} data-testid="channel-type-note">
      {t(`channel.form.${note}`)}
    </Alert>
  );
};

/** The key (or the sub-fields it is composed from) and the batch checkbox. */
export const KeyFields = ({ form, editing, set }: TypeFieldsProps) => {
  const { t } = useTranslation();
  const hint = KEY_HINTS[form.type];
  const inputs = CONFIG_INPUTS[form.type] ?? [];
  const setConfig = (field: ConfigField, value: string) => set('config', { ...form.config, [field]: value });
  const batch = form.batch && canBatch(form.type, editing);
  return (
    <Stack gap="sm">
      {inputs.map((input) => {
        // A stored secret is never read back: blank keeps it, as for the key.
        const kept = editing && form.storedType === form.type && isSecretConfigField(input.field);
        const props = {
          label: t(`channel.form.${input.label}`),
          placeholder: t(kept ? 'channel.form.secretEditPlaceholder' : `channel.form.${input.placeholder}`),
          value: form.config[input.field],
          name: input.field,
          required: !kept,
          onChange: (event: { currentTarget: { value: string } }) =>
            setConfig(input.field, event.currentTarget.value),
        };
        if (input.kind === 'json')
          return (
            <Textarea key={input.field} {...props} autosize minRows={3} maxRows={10} styles={MONOSPACE} />
          );
        if (input.kind === 'secret')
          return <PasswordInput key={input.field} {...props} autoComplete="new-password" />;
        return <TextInput key={input.field} {...props} autoComplete="off" />;
      })}
      {hasComposedKey(form.type) ? (
        <Text size="sm" c="dimmed" data-testid="channel-key-composed">
          {t('channel.form.keyComposed', { format: COMPOSED_FORMATS[form.type] ?? '' })}
        </Text>
      ) : batch ? (
        <Textarea
          label={t('channel.form.key')}
          required
          placeholder={t('channel.form.keyBatchPlaceholder')}
          description={hint ? t(`channel.form.keyHints.${hint}`) : undefined}
          value={form.key}
          onChange={(event) => set('key', event.currentTarget.value)}
          autosize
          minRows={4}
          maxRows={12}
          styles={MONOSPACE}
          name="key"
        />
      ) : editing ? (
        // Editing: several keys, one per line, make one channel that rotates them (see its key states).
        <Textarea
          label={t('channel.form.key')}
          placeholder={t('channel.form.keyEditPlaceholder')}
          description={t('channel.form.keysHint')}
          value={form.key}
          onChange={(event) => set('key', event.currentTarget.value)}
          autosize
          minRows={1}
          maxRows={12}
          styles={MONOSPACE}
          name="key"
        />
      ) : (
        <TextInput
          label={t('channel.form.key')}
          required={!editing}
          placeholder={
            editing
              ? t('channel.form.keyEditPlaceholder')
              : hint
                ? t(`channel.form.keyHints.${hint}`)
                : t('channel.form.keyPlaceholder')
          }
          description={hint ? t(`channel.form.keyHints.${hint}`) : undefined}
          value={form.key}
          onChange={(event) => set('key', event.currentTarget.value)}
          autoComplete="new-password"
          name="key"
        />
      )}
      {canBatch(form.type, editing) && (
        <Checkbox
          label={t('channel.form.batch')}
          checked={form.batch}
          onChange={(event) => set('batch', event.currentTarget.checked)}
          data-testid="channel-batch"
        />
      )}
    </Stack>
  );
};

/** The base URL in its type's meaning, and the type's `other` field. */
export const AddressFields = ({ form, set }: Omit<TypeFieldsProps, 'editing'>) => {
  const { t } = useTranslation();
  const baseUrl = form.type in BASE_URL_FIELDS ? BASE_URL_FIELDS[form.type] : PROXY_FIELD;
  const other = OTHER_FIELDS[form.type];
  return (
    <>
      {baseUrl && (
        <TextInput
          label={t(`channel.form.${baseUrl.label}`)}
          placeholder={t(`channel.form.${baseUrl.placeholder}`)}
          value={form.baseUrl}
          onChange={(event) => set('baseUrl', event.currentTarget.value)}
          autoComplete="off"
          name="base_url"
        />
      )}
      {other && (
        <TextInput
          label={t(`channel.form.${other.label}`)}
          placeholder={t(`channel.form.${other.placeholder}`)}
          value={form.other}
          onChange={(event) => set('other', event.currentTarget.value)}
          autoComplete="off"
          name="other"
        />
      )}
    </>
  );
};
