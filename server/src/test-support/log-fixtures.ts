import { LOG_TYPE, USER_STATUS } from '@sluice/contract/statuses';
import type { Insertable, Kysely } from 'kysely';
import type { LogsTable, Tables } from '../db/tables.js';
import { hashPassword } from '../lib/password.js';
import { apiClient, type ApiClient } from './api-client.js';
import type { TestSluice } from './test-sluice.js';

export const FIXTURE_PASSWORD = 'user-password-1';

export interface SignedInUser {
  readonly id: number;
  readonly username: string;
  readonly client: ApiClient;
}

/** Creates a user directly in the database and logs it in with its own cookie jar. */
export const signInNewUser = async (test: TestSluice, username: string, role = 1): Promise<SignedInUser> => {
  await test.sluice.database.db
    .insertInto('users')
    .values({
      username,
      password: await hashPassword(FIXTURE_PASSWORD),
      display_name: username,
      role,
      status: USER_STATUS.enabled,
      quota: 0,
      used_quota: 0,
      request_count: 0,
      group: 'default',
    })
    .execute();
  const row = await test.sluice.database.db
    .selectFrom('users')
    .select('id')
    .where('username', '=', username)
    .executeTakeFirstOrThrow();
  const client = apiClient(test.sluice.app);
  await client.login(username, FIXTURE_PASSWORD);
  return { id: row.id, username, client };
};

/** Logs in root (the default password) in a fresh cookie jar. */
export const signInRoot = async (test: TestSluice): Promise<ApiClient> => {
  const client = apiClient(test.sluice.app);
  await client.login('root', '123456');
  return client;
};

export type LogFixture = Partial<Omit<Insertable<LogsTable>, 'id'>> & {
  readonly user_id: number;
  readonly created_at: number;
};

/** Every column filled (SQLite multi-row inserts would write NULL for an omitted one). */
const fullRow = (row: LogFixture): Insertable<LogsTable> => ({
  type: LOG_TYPE.consume,
  content: '',
  username: '',
  token_name: '',
  model_name: '',
  quota: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  channel_id: 0,
  request_id: '',
  elapsed_time: 0,
  is_stream: false,
  system_prompt_reset: false,
  ...row,
});

/** Inserts log rows through the logs database, in order (so ids rise with the array index). */
export const insertLogs = async (db: Kysely<Tables>, rows: readonly LogFixture[]): Promise<void> => {
  for (let index = 0; index < rows.length; index += 200) {
    await db
      .insertInto('logs')
      .values(rows.slice(index, index + 200).map(fullRow))
      .execute();
  }
};

/** Parses RFC 4180 CSV (quoted fields, doubled quotes, CRLF or LF), dropping a leading BOM. */
export const parseCsv = (text: string): string[][] => {
  const input = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < input.length; index++) {
    const char = input[index];
    if (quoted) {
      if (char === '"' && input[index + 1] === '"') {
        field += '"';
        index++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && input[index + 1] === '\n') index++;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += char;
  }
  if (field !== '' || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  return records;
};
