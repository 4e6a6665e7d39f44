import type { Kysely } from 'kysely';
import type { Tables } from './tables.js';

/**
 * Sluice's roll-ups of the consumption log rows (type 2), beside the logs table in the logs'
 * database: sums per hour and per UTC day, at four grains. docs/architecture.md ("The console's
 * reads at scale") tells how they are kept and read.
 */
export const QUARTER = 900;
export const HOUR = 3600;
export const DAY = 86_400;

/** What a roll-up row may be keyed by, besides its bucket. */
export const DIMENSIONS = [
  'user_id',
  'username',
  'token_name',
  'channel_id',
  'model_name',
  'client_format',
] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/**
 * Every cube has every column (a dimension it is not keyed by holds '' or 0), so that one type
 * serves them all; the primary key names the dimensions it is keyed by.
 */
export interface CubeTable {
  span: number;
  bucket: number;
  user_id: number;
  username: string;
  token_name: string;
  channel_id: number;
  model_name: string;
  client_format: string;
  requests: number;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
}

/** Per hour that holds log rows (of any type) up to the watermark: their lowest and highest id. */
export interface LogHoursTable {
  hour: number;
  min_id: number;
  max_id: number;
}

/** The roll-ups' watermark: every log id up to `last_id` is in the cubes (or was never committed). */
export interface RollupStateTable {
  name: string;
  last_id: number;
  updated_at: number;
}

export type CubeName =
  'sluice_log_by_model' | 'sluice_log_by_channel' | 'sluice_log_by_user' | 'sluice_log_by_token';

export interface CubeDefinition {
  readonly name: CubeName;
  /** The dimensions a row is keyed by: a query filtering by others cannot use this cube. */
  readonly dimensions: readonly Dimension[];
  /**
   * The widths of its buckets, in seconds: hours (a window's partial days, a caller's zone) and UTC
   * days. (`by_token` kept hours only until migration 0016: a busy key's history then read one row
   * per hour, model and channel it used, and grew with the log.) `by_model` also keeps quarter hours
   * (since migration 0017, see QUARTERS_STATE_NAME): a zone not in whole hours (UTC+5:30, +5:45,
   * −3:30) starts its days inside an hour, and the part of that hour on either side of the caller's
   * midnight is whole quarters, read from them instead of from every log row of the half hour.
   */
  readonly spans: readonly number[];
  /** Primary key, in the order rows are clustered by (a cube's usual filter first). */
  readonly key: readonly (Dimension | 'span' | 'bucket')[];
  readonly indexes: readonly { readonly name: string; readonly columns: readonly string[] }[];
}

/**
 * The four grains, smallest first: a query uses the first whose dimensions cover its filters, so
 * that its cost is the number of buckets times the few rows each holds at that grain, whatever the
 * number of log rows (a heavy user's keys are summed in `by_user`, not read one by one).
 */
export const CUBES: readonly CubeDefinition[] = [
  {
    name: 'sluice_log_by_model',
    spans: [QUARTER, HOUR, DAY],
    dimensions: ['model_name', 'client_format'],
    key: ['span', 'bucket', 'model_name', 'client_format'],
    indexes: [],
  },
  {
    name: 'sluice_log_by_channel',
    spans: [HOUR, DAY],
    dimensions: ['channel_id', 'model_name', 'client_format'],
    key: ['channel_id', 'span', 'bucket', 'model_name', 'client_format'],
    indexes: [],
  },
  {
    name: 'sluice_log_by_user',
    spans: [HOUR, DAY],
    dimensions: ['user_id', 'username', 'model_name', 'client_format'],
    key: ['user_id', 'span', 'bucket', 'username', 'model_name', 'client_format'],
    indexes: [{ name: 'idx_sluice_log_by_user_username', columns: ['username', 'span', 'bucket'] }],
  },
  {
    name: 'sluice_log_by_token',
    spans: [HOUR, DAY],
    dimensions: ['user_id', 'username', 'token_name', 'channel_id', 'model_name', 'client_format'],
    key: ['user_id', 'token_name', 'span', 'bucket', 'username', 'channel_id', 'model_name', 'client_format'],
    indexes: [
      { name: 'idx_sluice_log_by_token_token_name', columns: ['token_name', 'span', 'bucket'] },
      { name: 'idx_sluice_log_by_token_username', columns: ['username', 'span', 'bucket'] },
    ],
  },
];

export const LOG_HOURS_TABLE = 'sluice_log_hours';
export const ROLLUP_STATE_TABLE = 'sluice_log_rollup_state';
/** The state table's row of the watermark. */
export const ROLLUP_STATE_NAME = 'logs';
/**
 * The state table's row that says from which hour `by_model`'s quarter hours are whole (`last_id`
 * holds that hour's start, in seconds): the hours an earlier build folded before migration 0017 have
 * no quarters, and are read from the log rows as before.
 */
export const QUARTERS_STATE_NAME = 'model_quarters_from';

export type RollupTables = Tables &
  Record<CubeName, CubeTable> & {
    sluice_log_hours: LogHoursTable;
    sluice_log_rollup_state: RollupStateTable;
  };

/** The logs' database with the roll-up tables typed. */
export const withRollups = (db: Kysely<Tables>): Kysely<RollupTables> =>
  db.withTables<Omit<RollupTables, keyof Tables>>();
