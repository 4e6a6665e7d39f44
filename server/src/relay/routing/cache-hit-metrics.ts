import type { Registry } from 'prom-client';

interface Series {
  readonly labels: { channel: string; key: string; model: string };
  prompt: number;
  cached: number;
}

type Value = { value: number; labels: Record<string, string> };

export interface CacheHitMetrics {
  /** One answer's prompt tokens and the part of them the provider's cache served. */
  observe(channelId: number, keyId: string | undefined, model: string, prompt: number, cached: number): void;
}

/**
 * The providers' prompt cache hits per channel, key (its id when the channel has several, else
 * empty) and model, from the upstreams' usage: the prompt tokens, the cached ones, and their
 * ratio. Counted in plain numbers and exposed only when /metrics is read (as http-metrics.ts).
 */
export const registerCacheHitMetrics = (registry: Registry): CacheHitMetrics => {
  const series = new Map<string, Series>();
  const register = (name: string, help: string, type: 'counter' | 'gauge', values: () => Value[]) =>
    registry.registerMetric({
      name,
      help,
      type,
      aggregator: type === 'gauge' ? 'average' : 'sum',
      get: () => Promise.resolve({ name, help, type, aggregator: 'sum', values: values() }),
      reset: () => series.clear(),
    } as unknown as Parameters<Registry['registerMetric']>[0]);
  const each = (value: (entry: Series) => number | undefined) => () => {
    const values: Value[] = [];
    for (const entry of series.values()) {
      const number = value(entry);
      if (number !== undefined) values.push({ value: number, labels: entry.labels });
    }
    return values;
  };
  register(
    'sluice_relay_prompt_tokens_total',
    'Prompt tokens the upstreams reported, by channel, key and model.',
    'counter',
    each((entry) => entry.prompt),
  );
  register(
    'sluice_relay_cached_prompt_tokens_total',
    "Prompt tokens served from the provider's prompt cache, by channel, key and model.",
    'counter',
    each((entry) => entry.cached),
  );
  register(
    'sluice_relay_cache_hit_ratio',
    'Cached prompt tokens ÷ prompt tokens since start, by channel, key and model.',
    'gauge',
    each((entry) => (entry.prompt > 0 ? entry.cached / entry.prompt : undefined)),
  );
  return {
    observe: (channelId, keyId, model, prompt, cached) => {
      if (prompt <= 0) return;
      const id = `${channelId} ${keyId ?? ''} ${model}`;
      let entry = series.get(id);
      if (!entry) {
        entry = { labels: { channel: String(channelId), key: keyId ?? '', model }, prompt: 0, cached: 0 };
        series.set(id, entry);
      }
      entry.prompt += prompt;
      entry.cached += Math.min(cached, prompt);
    },
  };
};
