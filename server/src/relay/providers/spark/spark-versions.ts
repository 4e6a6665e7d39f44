/** One Spark API version: its WebSocket path and the `domain` its frames name. */
export interface SparkVersion {
  readonly version: string;
  readonly path: string;
  readonly domain: string;
  /** The version takes `functions` (v3 and later). */
  readonly functions: boolean;
}

/** one-api's table of versions → URL path and domain. */
const VERSIONS: Readonly<Record<string, SparkVersion>> = {
  'v1.1': { version: 'v1.1', path: '/v1.1/chat', domain: 'lite', functions: false },
  'v2.1': { version: 'v2.1', path: '/v2.1/chat', domain: 'generalv2', functions: false },
  'v3.1': { version: 'v3.1', path: '/v3.1/chat', domain: 'generalv3', functions: true },
  'v3.1-128K': { version: 'v3.1-128K', path: '/chat/pro-128k', domain: 'pro-128k', functions: true },
  'v3.5': { version: 'v3.5', path: '/v3.5/chat', domain: 'generalv3.5', functions: true },
  'v3.5-32K': { version: 'v3.5-32K', path: '/chat/max-32k', domain: 'max-32k', functions: true },
  'v4.0': { version: 'v4.0', path: '/v4.0/chat', domain: '4.0Ultra', functions: true },
};

/** The current model names (one-api's HEAD) → versions. */
const MODELS: Readonly<Record<string, string>> = {
  'Spark-Lite': 'v1.1',
  'Spark-Pro': 'v3.1',
  'Spark-Pro-128K': 'v3.1-128K',
  'Spark-Max': 'v3.5',
  'Spark-Max-32K': 'v3.5-32K',
  'Spark-4.0-Ultra': 'v4.0',
};

/**
 * The version a request goes to: from the model name (`Spark-Max`, or one-api's older
 * `SparkDesk-v3.5`), else the channel's `api_version` (legacy `other`), else v1.1.
 */
export const sparkVersionOf = (model: string, apiVersion: string | undefined): SparkVersion => {
  const named = MODELS[model] ?? /^SparkDesk-(v[\d.]+(?:-\d+K)?)$/i.exec(model)?.[1];
  const wanted = named ?? (apiVersion?.trim() || 'v1.1');
  const normal = wanted.startsWith('v') ? wanted : `v${wanted}`;
  return VERSIONS[normal] ?? VERSIONS[normal.replace(/k$/, 'K')] ?? VERSIONS['v1.1']!;
};
