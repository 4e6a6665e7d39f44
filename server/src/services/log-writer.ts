import { LOG_TYPE, type LogType } from '@sluice/contract/statuses';
import type { Kysely, Transaction } from 'kysely';
import type { Tables } from '../db/tables.js';
import { nowSeconds } from '../lib/time.js';

export interface LogEntry {
  readonly userId: number;
  readonly username: string;
  readonly type: LogType;
  readonly content: string;
  readonly quota?: number;
}

/** Writes one log row (top-up, manage, system); consumption rows come from the relay. */
export const writeLog = async (db: Kysely<Tables> | Transaction<Tables>, entry: LogEntry): Promise<void> => {
  await db
    .insertInto('logs')
    .values({
      user_id: entry.userId,
      username: entry.username,
      created_at: nowSeconds(),
      type: entry.type,
      content: entry.content,
      quota: entry.quota ?? 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      channel_id: 0,
      token_name: '',
      model_name: '',
      request_id: '',
      elapsed_time: 0,
      is_stream: false,
      system_prompt_reset: false,
    })
    .execute();
};

export { LOG_TYPE };
