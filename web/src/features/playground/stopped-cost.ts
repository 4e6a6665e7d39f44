import { logSchema } from '@sluice/contract/schemas/log';
import { LOG_TYPE } from '@sluice/contract/statuses';
import { apiGetPage } from '../../lib/api-client.js';

/** What the user's log says a stopped reply was billed: the tokens delivered and their quota. */
export interface BilledReply {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly quota: number;
}

/** Tries and the pause between them: a stopped stream is billed as Sluice sees the connection close. */
const TRIES = 4;
const PAUSE_MS = 500;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The cost of a reply the user stopped: a stopped stream carries no usage, but Sluice bills what it
 * delivered, so its consumption row tells (GET /api/log/self filtered by the request id of
 * `x-sluice-request-id`: found however many other requests the user makes meanwhile). Looked for a
 * few times, since the row is written just after the stop; undefined if never found (or the log
 * cannot be read).
 */
export const stoppedReplyCost = async (
  lookup: { readonly requestId: string },
  pause: (ms: number) => Promise<void> = sleep,
): Promise<BilledReply | undefined> => {
  for (let attempt = 0; attempt < TRIES; attempt += 1) {
    if (attempt > 0) await pause(PAUSE_MS * attempt);
    try {
      const page = await apiGetPage('/api/log/self', logSchema, {
        p: 0,
        size: 10,
        type: LOG_TYPE.consume,
        request_id: lookup.requestId,
      });
      const row = page.items.find((item) => item.request_id === lookup.requestId);
      if (row)
        return { promptTokens: row.prompt_tokens, completionTokens: row.completion_tokens, quota: row.quota };
    } catch {
      return undefined;
    }
  }
  return undefined;
};
