import { NumberInput, SimpleGrid } from '@mantine/core';
import {
  CHANNEL_TIMEOUT_FIELDS,
  MAX_CHANNEL_TIMEOUT_SECONDS,
  type ChannelTimeoutField,
} from '@sluice/contract/channel-config';
import { useTranslation } from 'react-i18next';
import type { ChannelFormState } from './channel-form-model.js';

const TEXTS = {
  connect_timeout: { label: 'channel.form.connectTimeout', hint: 'channel.form.connectTimeoutHint' },
  first_byte_timeout: { label: 'channel.form.firstByteTimeout', hint: 'channel.form.firstByteTimeoutHint' },
  idle_timeout: { label: 'channel.form.idleTimeout', hint: 'channel.form.idleTimeoutHint' },
} as const satisfies Record<ChannelTimeoutField, { label: string; hint: string }>;

/** A timeout of the loaded config as the form shows it: its seconds, or blank (the default). */
export const timeoutValue = (
  config: Readonly<Record<string, unknown>>,
  field: ChannelTimeoutField,
): number | string => {
  const value = config[field];
  return typeof value === 'number' || typeof value === 'string' ? value : '';
};

/** The config with a timeout set (seconds) or, blank or 0, removed: the channel then has the default. */
export const withTimeout = (
  config: Readonly<Record<string, unknown>>,
  field: ChannelTimeoutField,
  value: number | string,
): Record<string, unknown> => {
  const next: Record<string, unknown> = { ...config };
  const seconds = typeof value === 'number' ? value : value.trim() === '' ? 0 : Number(value);
  if (seconds === 0) delete next[field];
  else next[field] = Number.isNaN(seconds) ? value : seconds;
  return next;
};

export interface TimeoutFieldsProps {
  readonly form: ChannelFormState;
  readonly set: <K extends keyof ChannelFormState>(key: K, value: ChannelFormState[K]) => void;
}

/**
 * The channel's own upstream timeouts (seconds, blank: the server's default), kept in its config
 * beside the fields one-api knows; the relay reads them (server/src/relay/upstream/channel-timeouts.ts).
 */
export const ChannelTimeoutFields = ({ form, set }: TimeoutFieldsProps) => {
  const { t } = useTranslation();
  return (
    <SimpleGrid cols={{ base: 1, xs: 3 }}>
      {CHANNEL_TIMEOUT_FIELDS.map((field) => (
        <NumberInput
          key={field}
          label={t(TEXTS[field].label)}
          description={t(TEXTS[field].hint)}
          placeholder={t('channel.form.timeoutPlaceholder')}
          value={timeoutValue(form.otherConfig, field)}
          onChange={(value) => set('otherConfig', withTimeout(form.otherConfig, field, value))}
          min={0}
          max={MAX_CHANNEL_TIMEOUT_SECONDS}
          decimalScale={3}
          name={field}
        />
      ))}
    </SimpleGrid>
  );
};
