import { statusSchema } from '@sluice/contract/schemas/status';
import { userSchema } from '@sluice/contract/schemas/user';
import { useSyncExternalStore } from 'react';
import { z } from 'zod';
import { parseJson } from '@sluice/contract/parse-json';
import { storedConversationsSchema } from './stored-conversation.js';

/**
 * The browser storage keys of spec §3, typed. Every read parses with zod: a value that does not
 * parse (edited by hand, written by an older console) reads as absent and is removed.
 *
 * Strings are stored raw (as one-api's console stores them); numbers and booleans as their text;
 * records as JSON.
 */

/** The user record kept after login: one-api fills only these fields in the login answer. */
export const storedUserSchema = userSchema.pick({
  id: true,
  username: true,
  display_name: true,
  role: true,
  status: true,
});
export type StoredUser = z.infer<typeof storedUserSchema>;

/** GET /api/models: channel type (as text) → its default model names. */
export const channelModelsSchema = z.record(z.string(), z.array(z.string()));

export const LANGUAGES = ['en', 'zh'] as const;
export type Language = (typeof LANGUAGES)[number];
export const COLOR_SCHEMES = ['light', 'dark', 'auto'] as const;

interface Codec<T> {
  decode(raw: string): T | undefined;
  encode(value: T): string;
}

const fromSchema =
  <T>(schema: z.ZodType<T>) =>
  (value: unknown): T | undefined => {
    const parsed = schema.safeParse(value);
    return parsed.success ? parsed.data : undefined;
  };

const json = <T>(schema: z.ZodType<T>): Codec<T> => ({
  decode: (raw) => fromSchema(schema)(parseJson(raw)),
  encode: (value) => JSON.stringify(value),
});

const text = <T extends string>(schema: z.ZodType<T>): Codec<T> => ({
  decode: fromSchema(schema),
  encode: (value) => value,
});
const plainText = text(z.string());

const number: Codec<number> = {
  decode: (raw) => fromSchema(z.coerce.number().finite())(raw.trim() === '' ? undefined : raw),
  encode: (value) => String(value),
};

const boolean: Codec<boolean> = {
  decode: (raw) => (raw === 'true' ? true : raw === 'false' ? false : undefined),
  encode: (value) => String(value),
};

/** The key table. Add a key here, never call localStorage directly. */
export const STORAGE_KEYS = {
  user: json(storedUserSchema),
  status: json(statusSchema),
  aff: plainText,
  quota_per_unit: number,
  display_in_currency: boolean,
  system_name: plainText,
  logo: plainText,
  footer_html: plainText,
  chat_link: plainText,
  /** Map from channel type to its model names (GET /api/models), also cached in memory. */
  channel_models: json(channelModelsSchema),
  /** The last notice shown as a toast on the home page. */
  notice: plainText,
  language: text(z.enum(LANGUAGES)),
  color_scheme: text(z.enum(COLOR_SCHEMES)),
  /** The playground's conversations, newest first. */
  playground: json(storedConversationsSchema),
} satisfies Record<string, { decode(raw: string): unknown; encode(value: never): string }>;

export type StorageKey = keyof typeof STORAGE_KEYS;
export type StorageValue<K extends StorageKey> = (typeof STORAGE_KEYS)[K] extends Codec<infer T> ? T : never;

const listeners = new Set<(key: string) => void>();
const notify = (key: string) => listeners.forEach((listener) => listener(key));

const backend = (): Storage | undefined => {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
};

const readRaw = (key: string): string | null => backend()?.getItem(key) ?? null;

/** Reads a key; an unparsable value is removed and reads as undefined. */
export const readStorage = <K extends StorageKey>(key: K): StorageValue<K> | undefined => {
  const raw = readRaw(key);
  if (raw === null) return undefined;
  const codec = STORAGE_KEYS[key] as Codec<StorageValue<K>>;
  const value = codec.decode(raw);
  if (value === undefined) backend()?.removeItem(key);
  return value;
};

export const writeStorage = <K extends StorageKey>(key: K, value: StorageValue<K>): void => {
  const codec = STORAGE_KEYS[key] as Codec<StorageValue<K>>;
  backend()?.setItem(key, codec.encode(value));
  notify(key);
};

export const removeStorage = (key: StorageKey): void => {
  backend()?.removeItem(key);
  notify(key);
};

/** Subscribes to writes of this tab and of other tabs (the `storage` event). */
export const subscribeStorage = (listener: (key: string) => void): (() => void) => {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => listener(event.key ?? '');
  globalThis.addEventListener?.('storage', onStorage);
  return () => {
    listeners.delete(listener);
    globalThis.removeEventListener?.('storage', onStorage);
  };
};

/**
 * Subscribes to writes of `key` made by other tabs only (the `storage` event). For a subscriber that
 * writes the key itself when told (Mantine's colour-scheme manager calls `set` from its `onUpdate`),
 * hearing its own writes would loop.
 */
export const subscribeOtherTabs = <K extends StorageKey>(
  key: K,
  listener: (value: StorageValue<K> | undefined) => void,
): (() => void) => {
  const onStorage = (event: StorageEvent) => {
    if (event.key === key || event.key === null) listener(readStorage(key));
  };
  globalThis.addEventListener?.('storage', onStorage);
  return () => globalThis.removeEventListener?.('storage', onStorage);
};

/** A stored value as React state: re-renders when the key is written (here or in another tab). */
export const useStoredValue = <K extends StorageKey>(key: K): StorageValue<K> | undefined => {
  // Snapshots must be stable: cache the parsed value by its raw text.
  const raw = useSyncExternalStore(
    (onChange) => subscribeStorage((changed) => (changed === key || changed === '' ? onChange() : undefined)),
    () => readRaw(key),
    () => null,
  );
  return raw === null ? undefined : decodeCached(key, raw);
};

const cache = new Map<string, { raw: string; value: unknown }>();
const decodeCached = <K extends StorageKey>(key: K, raw: string): StorageValue<K> | undefined => {
  const hit = cache.get(key);
  if (hit && hit.raw === raw) return hit.value as StorageValue<K> | undefined;
  const value = (STORAGE_KEYS[key] as Codec<StorageValue<K>>).decode(raw);
  cache.set(key, { raw, value });
  return value;
};

/** Per-topic prompt flags (`prompt-<topic>`): a prompt shows only while its flag is absent. */
export const shouldShowPrompt = (topic: string): boolean => readRaw(`prompt-${topic}`) === null;
export const setPromptShown = (topic: string): void => backend()?.setItem(`prompt-${topic}`, 'true');
