/**
 * one-api's ENABLE_METRIC: every channel keeps the outcomes of its last `size` relay attempts (a
 * success counts only for a first attempt, as one-api counts it). A failure that leaves a full window
 * below `threshold` successes disables the channel, and the window starts again. Kept in memory on
 * each instance, as in one-api.
 */
export const createChannelMetrics = (options: {
  readonly size: number;
  readonly threshold: number;
  readonly disable: (channelId: number, reason: string) => void;
}) => {
  const windows = new Map<number, boolean[]>();
  const record = (channelId: number, success: boolean): boolean[] => {
    let window = windows.get(channelId);
    if (!window) {
      window = [];
      windows.set(channelId, window);
    }
    window.push(success);
    if (window.length > options.size) window.shift();
    return window;
  };
  return {
    success: (channelId: number): void => {
      record(channelId, true);
    },
    failure: (channelId: number): void => {
      const window = record(channelId, false);
      if (window.length < options.size) return;
      const rate = window.filter(Boolean).length / window.length;
      if (rate >= options.threshold) return;
      windows.delete(channelId);
      options.disable(
        channelId,
        `the success rate of its last ${window.length} requests, ${rate.toFixed(2)}, is below ${options.threshold}`,
      );
    },
  };
};

export type ChannelMetrics = ReturnType<typeof createChannelMetrics>;
