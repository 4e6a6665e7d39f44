import type { LiveChannel, LiveMinute, LiveModel } from '@sluice/contract/schemas/live-dashboard';

interface Rates {
  readonly minutes: LiveMinute[];
  readonly rpm: number;
  readonly tpm: number;
}

/** The relay's live counters as the dashboards read them (relay/routing/live-snapshot.ts), passed in by boot.ts. */
export interface LiveDashboardPort {
  gateway(nowMs: number): Promise<Rates & { channels: LiveChannel[]; models: LiveModel[] }>;
  user(userId: number, nowMs: number): Promise<Rates>;
}
