import { describe, expect, it } from 'vitest';
import { createChannelMetrics } from './channel-metrics.js';

describe('channel metrics (ENABLE_METRIC)', () => {
  const make = () => {
    const disabled: [number, string][] = [];
    const metrics = createChannelMetrics({
      size: 4,
      threshold: 0.8,
      disable: (channelId, reason) => disabled.push([channelId, reason]),
    });
    return { metrics, disabled };
  };

  it('disables on a failure that leaves a full window below the threshold, then starts again', () => {
    const { metrics, disabled } = make();
    metrics.success(1);
    metrics.failure(1);
    metrics.failure(1);
    expect(disabled).toEqual([]);
    metrics.failure(1);
    expect(disabled).toEqual([[1, 'the success rate of its last 4 requests, 0.25, is below 0.8']]);
    // A new window: three more failures are not enough to judge.
    for (let index = 0; index < 3; index += 1) metrics.failure(1);
    expect(disabled).toHaveLength(1);
  });

  it('keeps only the last outcomes, judges only on a failure, and keeps channels apart', () => {
    const { metrics, disabled } = make();
    for (let index = 0; index < 3; index += 1) metrics.failure(2);
    for (let index = 0; index < 4; index += 1) metrics.success(2);
    metrics.success(3);
    // The window of 2 holds four successes now: one failure leaves 3 of 4, 0.75, below 0.8.
    metrics.failure(2);
    expect(disabled.map(([id]) => id)).toEqual([2]);
    metrics.failure(3);
    expect(disabled.map(([id]) => id)).toEqual([2]);
  });

  it('lets a channel at the threshold stay', () => {
    const disabled: number[] = [];
    const metrics = createChannelMetrics({ size: 5, threshold: 0.8, disable: (id) => disabled.push(id) });
    for (let index = 0; index < 4; index += 1) metrics.success(7);
    metrics.failure(7);
    expect(disabled).toEqual([]);
  });
});
