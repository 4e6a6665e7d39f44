import { hashPassword } from '../lib/password.js';
import { connectFixture, type FixtureConnection } from './fixture-connection.js';
import { oneApiGormDdl } from './one-api-gorm-ddl.js';
import type { TestDatabase } from './test-databases.js';

/** Rows of a one-api database, as one-api writes them: two users (root's hash from Go's bcrypt), keys, a channel, options, a log. */
export const ROOT_PASSWORD = 'go-root-pass1';
export const ALICE_PASSWORD = 'alice-pass-01';
export const ROOT_ACCESS_TOKEN = '0123456789abcdef0123456789abcdef';
export const ALICE_ACCESS_TOKEN = 'fedcba9876543210fedcba9876543210';
export const ALICE_KEY_1 = 'AbCdEfGhIjKlMnOp0A1b2C3d4E5f6A7b8C9d0E1f2A3b4C5d';
export const ALICE_KEY_2 = 'QrStUvWxYz012345F6e5D4c3B2a1F0e9D8c7B6a5F4e3D2c1';

/** Fills the one-api database the way one-api would have: GORM never sets ids. */
export const insertOneApiRows = async (connection: FixtureConnection): Promise<void> => {
  // Go's bcrypt writes $2a$; bcryptjs writes $2b$: the algorithm is the same.
  const rootHash = (await hashPassword(ROOT_PASSWORD)).replace(/^\$2b\$/, '$2a$');
  const aliceHash = await hashPassword(ALICE_PASSWORD);
  const user =
    'INSERT INTO `users` (`username`,`password`,`display_name`,`role`,`status`,`email`,`github_id`,`wechat_id`,' +
    '`lark_id`,`oidc_id`,`access_token`,`quota`,`used_quota`,`request_count`,`group`,`aff_code`,`inviter_id`) ' +
    'VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)';
  await connection.run(user, [
    'root',
    rootHash,
    'Root User',
    100,
    1,
    '',
    '',
    '',
    '',
    '',
    ROOT_ACCESS_TOKEN,
    499_999_999_987_655,
    12_345,
    7,
    'default',
    'R00t',
    0,
  ]);
  await connection.run(user, [
    'alice',
    aliceHash,
    'Alice',
    1,
    1,
    'alice@example.com',
    'gh-alice',
    '',
    '',
    '',
    ALICE_ACCESS_TOKEN,
    250_000,
    5_000,
    3,
    'vip',
    'Al1c',
    1,
  ]);
  const token =
    'INSERT INTO `tokens` (`user_id`,`key`,`status`,`name`,`created_time`,`accessed_time`,`expired_time`,' +
    '`remain_quota`,`unlimited_quota`,`used_quota`,`models`,`subnet`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)';
  await connection.run(token, [
    2,
    ALICE_KEY_1,
    1,
    'default',
    1_700_000_000,
    1_700_000_100,
    -1,
    -1,
    true,
    0,
    '',
    '',
  ]);
  await connection.run(token, [
    2,
    ALICE_KEY_2,
    2,
    'limited',
    1_700_000_200,
    1_700_000_300,
    1_900_000_000,
    10_000,
    false,
    4_321,
    'gpt-4o-mini,gpt-4o',
    '10.0.0.0/8',
  ]);
  await connection.run(
    'INSERT INTO `channels` (`type`,`key`,`status`,`name`,`weight`,`created_time`,`test_time`,`response_time`,' +
      '`base_url`,`other`,`balance`,`balance_updated_time`,`models`,`group`,`used_quota`,`model_mapping`,' +
      '`priority`,`config`,`system_prompt`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)',
    [
      1,
      'sk-upstream',
      1,
      'openai',
      0,
      1_700_000_000,
      0,
      321,
      '',
      '',
      12.5,
      1_700_000_000,
      'gpt-4o-mini,gpt-4o',
      'default,vip',
      4_321,
      '',
      0,
      '{}',
      '',
    ],
  );
  const ability =
    'INSERT INTO `abilities` (`group`,`model`,`channel_id`,`enabled`,`priority`) VALUES (?,?,?,?,?)';
  for (const group of ['default', 'vip'])
    for (const model of ['gpt-4o-mini', 'gpt-4o']) await connection.run(ability, [group, model, 1, true, 0]);
  const option = 'INSERT INTO `options` (`key`,`value`) VALUES (?,?)';
  await connection.run(option, ['SystemName', 'Old One API']);
  await connection.run(option, ['QuotaForNewUser', '777']);
  await connection.run(option, ['SomeRetiredOption', 'kept as it is']);
  await connection.run(
    'INSERT INTO `redemptions` (`user_id`,`key`,`status`,`name`,`quota`,`created_time`,`redeemed_time`) ' +
      'VALUES (?,?,?,?,?,?,?)',
    [1, '0123456789abcdef0123456789abcdef', 1, 'gift', 50_000, 1_700_000_000, 0],
  );
  await connection.run(
    'INSERT INTO `logs` (`user_id`,`created_at`,`type`,`content`,`username`,`token_name`,`model_name`,`quota`,' +
      '`prompt_tokens`,`completion_tokens`,`channel_id`) VALUES (?,?,?,?,?,?,?,?,?,?,?)',
    [
      2,
      1_700_000_500,
      2,
      'model ratio 2.50, completion ratio 4.00',
      'alice',
      'default',
      'gpt-4o',
      1_234,
      100,
      50,
      1,
    ],
  );
};

/** A one-api v0.6.9 database as GORM made it and one-api filled it (`latest`: with the later logs columns). */
export const writeOneApiDatabase = async (database: TestDatabase, latest = false): Promise<void> => {
  const connection = await connectFixture(database);
  try {
    for (const statement of oneApiGormDdl(database.dialect, latest)) await connection.run(statement);
    await insertOneApiRows(connection);
  } finally {
    await connection.close();
  }
};
