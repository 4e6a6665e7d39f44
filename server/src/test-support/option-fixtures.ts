import { expect } from 'vitest';
import type { ApiClient } from './api-client.js';
import type { TestSluice } from './test-sluice.js';

export type OptionList = { key: string; value: string }[];

/** The options table as stored, read directly. */
export const storedOptions = async (test: TestSluice): Promise<Map<string, string | null>> => {
  const rows = await test.sluice.database.db.selectFrom('options').select(['key', 'value']).execute();
  return new Map(rows.map((row) => [row.key, row.value]));
};

/** An option list answer (GET /api/option/ or /api/option/defaults) of `client`, which must succeed. */
export const listOptions = async (client: ApiClient, path = '/api/option/'): Promise<OptionList> => {
  const answer = await client.get(path);
  expect(answer.body.success, answer.text).toBe(true);
  return answer.body.data as OptionList;
};
