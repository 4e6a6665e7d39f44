import type { ChannelTypeName } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import { describeAdaptorConformance, type KeyPlacement } from '../../test-support/adaptor-conformance.js';
import { loadRecordings, type Recordings } from '../../test-support/adaptor-conformance-support.js';
import type { Adaptor } from './adaptor.js';
import { PROVIDERS, type Provider } from './registry.js';

const RECORDINGS = {
  openai: loadRecordings(new URL('./openai/', import.meta.url)),
  azure: loadRecordings(new URL('./azure/', import.meta.url)),
  anthropic: loadRecordings(new URL('./anthropic/', import.meta.url)),
  gemini: loadRecordings(new URL('./gemini/', import.meta.url)),
  tencent: loadRecordings(new URL('./tencent/', import.meta.url)),
  spark: loadRecordings(new URL('./spark/', import.meta.url)),
  baidu: loadRecordings(new URL('./baidu/', import.meta.url)),
  zhipu: loadRecordings(new URL('./zhipu/', import.meta.url)),
  ali: loadRecordings(new URL('./ali/', import.meta.url)),
  // The registry's first Vertex AI model is a Claude one.
  vertexClaude: loadRecordings(new URL('./vertex/', import.meta.url), 'vertex-claude'),
  cohere: loadRecordings(new URL('./cohere/', import.meta.url)),
  deepl: loadRecordings(new URL('./deepl/', import.meta.url)),
  palm: loadRecordings(new URL('./palm/', import.meta.url)),
  coze: loadRecordings(new URL('./coze/', import.meta.url)),
  aiproxy: loadRecordings(new URL('./aiproxy/', import.meta.url)),
} satisfies Record<string, Recordings>;

const BEARER: KeyPlacement = { header: 'authorization', scheme: 'Bearer ' };
const OPENAI = { key: BEARER, recordings: 'openai' } as const;
/** A Vertex AI channel's config: what its adaptor reads besides the access token it is given. */
const VERTEX_CONFIG = {
  region: 'us-east5',
  vertex_ai_project_id: 'sluice-conformance',
  vertex_ai_adc: JSON.stringify({
    private_key: '-----BEGIN PRIVATE KEY-----\nnot-a-real-key\n-----END PRIVATE KEY-----\n',
    client_email: 'relay@sluice-conformance.iam.gserviceaccount.com',
  }),
};

/**
 * Where each distinct adaptor of the registry wants the key, and whose recordings it reads: one entry
 * under the name of any row that uses it. A new adaptor without an entry fails below.
 */
const ENTRIES: Partial<
  Record<
    ChannelTypeName,
    {
      readonly key: KeyPlacement;
      readonly recordings: keyof typeof RECORDINGS;
      /** A stream answered in one body (ConformanceSubject). */
      readonly oneBody?: boolean;
      /** The key placement carries the access token of the adaptor's token source (ConformanceSubject). */
      readonly accessToken?: boolean;
      readonly config?: Readonly<Record<string, string>>;
      /** Reached over a WebSocket (ConformanceSubject). */
      readonly webSocket?: boolean;
    }
  >
> = {
  openAi: OPENAI,
  // The OpenAI adaptor every OpenAI-compatible row without a URL of its own shares.
  api2d: OPENAI,
  openRouter: OPENAI,
  minimax: OPENAI,
  cloudflare: OPENAI,
  doubao: OPENAI,
  novita: OPENAI,
  azure: { key: { header: 'api-key' }, recordings: 'azure' },
  anthropic: { key: { header: 'x-api-key' }, recordings: 'anthropic' },
  gemini: { key: { header: 'x-goog-api-key' }, recordings: 'gemini' },
  aiProxyLibrary: { key: BEARER, recordings: 'aiproxy' },
  coze: { key: BEARER, recordings: 'coze' },
  palm: { key: { header: 'x-goog-api-key' }, recordings: 'palm', oneBody: true },
  deepL: { key: { header: 'authorization', scheme: 'DeepL-Auth-Key ' }, recordings: 'deepl', oneBody: true },
  cohere: { key: BEARER, recordings: 'cohere' },
  // AppId|SecretId|SecretKey: the SecretKey only signs (TC3), it is never sent.
  tencent: {
    key: { signed: (secret) => `1300000000|AKIDconformance0000000000000000000000|${secret}` },
    recordings: 'tencent',
  },
  // APPID|APISecret|APIKey: the APISecret only signs the WebSocket URL, it is never sent.
  xunfei: {
    key: { signed: (secret) => `5f8a2c1e|${secret}|apikeyconformance0000000000000000` },
    recordings: 'spark',
    webSocket: true,
  },
  baidu: { key: BEARER, recordings: 'baidu' },
  zhipu: { key: BEARER, recordings: 'zhipu' },
  ali: { key: BEARER, recordings: 'ali' },
  vertexAi: { key: BEARER, recordings: 'vertexClaude', accessToken: true, config: VERTEX_CONFIG },
};

/** The registry's rows by the adaptor object they use. */
const rowsByAdaptor = new Map<Adaptor, Provider[]>();
for (const provider of Object.values(PROVIDERS))
  if (provider.adaptor)
    rowsByAdaptor.set(provider.adaptor, [...(rowsByAdaptor.get(provider.adaptor) ?? []), provider]);

/**
 * Adaptors whose conformance suite runs in their own folder, with what only it can give the suite
 * (Bedrock: binary event-stream recordings framed by its test support, and a fixed answer id).
 */
const OWN_SUITE: ReadonlySet<ChannelTypeName> = new Set(['aws']);

const entryOf = (rows: readonly Provider[]) => {
  const row = rows.find((provider) => ENTRIES[provider.name] !== undefined);
  const entry = row && ENTRIES[row.name];
  return row && entry ? { row, entry } : undefined;
};

describe('conformance of the registry’s adaptors', () => {
  it('has a conformance entry for every distinct adaptor in the registry, so every row is covered', () => {
    const uncovered = [...rowsByAdaptor.values()]
      .filter((rows) => entryOf(rows) === undefined && !rows.some((row) => OWN_SUITE.has(row.name)))
      .map((rows) => rows.map((row) => row.name).join(', '));
    expect(uncovered).toEqual([]);
  });

  it('names only rows that have an adaptor, one entry per adaptor', () => {
    const named = Object.keys(ENTRIES).map((name) =>
      Object.values(PROVIDERS).find((provider) => provider.name === name),
    );
    expect(named.filter((provider) => provider?.adaptor === undefined)).toEqual([]);
    expect(new Set(named.map((provider) => provider?.adaptor)).size).toBe(named.length);
  });
});

for (const [adaptor, rows] of rowsByAdaptor) {
  const found = entryOf(rows);
  if (!found) continue;
  const { row, entry } = found;
  describeAdaptorConformance({
    name: `registry row ${row.name}${rows.length > 1 ? ` (and ${rows.length - 1} rows sharing its adaptor)` : ''}`,
    adaptor,
    type: row.type,
    model: row.models[0] ?? 'model',
    key: entry.key,
    recordings: RECORDINGS[entry.recordings],
    ...(entry.oneBody ? { oneBody: true } : {}),
    ...(entry.accessToken ? { accessToken: true, config: entry.config } : {}),
    ...(entry.webSocket ? { webSocket: true } : {}),
  });
}
