import { LOG_TYPE } from '@sluice/contract/statuses';
import {
  sql,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type RawBuilder,
  type SqlBool,
} from 'kysely';
import { bucketStart } from '../db/day-bucket.js';
import {
  DAY,
  LOG_HOURS_TABLE,
  ROLLUP_STATE_NAME,
  ROLLUP_STATE_TABLE,
  type CubeDefinition,
  type Dimension,
  type RollupTables,
} from '../db/log-rollup-tables.js';
import type { KnownBounds } from './log-hour-bounds.js';
import type { CubePiece, RawPiece, TimeEdge, TimeRange } from './log-time-plan.js';

/**
 * The branches of readSums' UNION ALL (log-rollup-read.ts): cube buckets, the raw rows of partial
 * hours, the raw rows above the watermark.
 */

/** What the sums are filtered by; an empty string or 0 is no filter. */
export type SumFilters = Partial<Record<Dimension, string | number>>;

/** How the sums are grouped: by the caller's day (`dayShift` seconds east of UTC), by model. */
export interface SumGroups {
  readonly dayShift?: number;
  readonly model?: boolean;
}

export interface Sums {
  requests: number;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
}

export const setFilters = (filters: SumFilters) =>
  (Object.entries(filters) as [Dimension, string | number | undefined][]).filter(
    (entry): entry is [Dimension, string | number] =>
      entry[1] !== undefined && entry[1] !== '' && entry[1] !== 0,
  );

export type Db = Kysely<RollupTables>;

/** The columns every branch selects, in this order, so that they line up in the UNION ALL. */
const selection = (
  time: string,
  groups: SumGroups,
  counted: Counted,
  sums: Record<keyof Sums, RawBuilder<number>>,
  model: RawBuilder<string>,
) => {
  const weighted = (sum: RawBuilder<number>) => sql<number>`${sql.lit(counted.weight)} * ${sum}`;
  return [
    (groups.dayShift === undefined
      ? sql<number>`0`
      : bucketStart(time, groups.dayShift + counted.offset, DAY)
    ).as('day'),
    (groups.model ? model : sql<string>`''`).as('model_name'),
    weighted(sums.requests).as('requests'),
    weighted(sums.quota).as('quota'),
    weighted(sums.prompt_tokens).as('prompt_tokens'),
    weighted(sums.completion_tokens).as('completion_tokens'),
  ];
};

type Counted = Pick<CubePiece, 'offset' | 'weight'>;

const CUBE_SUMS = {
  requests: sql<number>`SUM(requests)`,
  quota: sql<number>`SUM(quota)`,
  prompt_tokens: sql<number>`SUM(prompt_tokens)`,
  completion_tokens: sql<number>`SUM(completion_tokens)`,
};

const RAW_SUMS = {
  requests: sql<number>`COUNT(*)`,
  quota: sql<number>`COALESCE(SUM(quota), 0)`,
  prompt_tokens: sql<number>`COALESCE(SUM(prompt_tokens), 0)`,
  completion_tokens: sql<number>`COALESCE(SUM(completion_tokens), 0)`,
};

const groupColumns = (groups: SumGroups) => [
  ...(groups.dayShift === undefined ? [] : [sql`1`]),
  ...(groups.model ? [sql`2`] : []),
];

/** created_at compared as an expression, so that no plan walks the created_at index over a window. */
const createdAt = sql<number>`(created_at + 0)`;

const rawBranch = (
  db: Db,
  filters: SumFilters,
  groups: SumGroups,
  counted: Counted,
  bounds: (eb: ExpressionBuilder<RollupTables, 'logs'>) => Expression<SqlBool>,
) => {
  const filtered = setFilters(filters);
  const query = db
    .selectFrom('logs')
    .select(selection('created_at', groups, counted, RAW_SUMS, sql<string>`COALESCE(model_name, '')`))
    // Filtered, the rows are read through the filter's index and their ids (a user's rows of a half
    // hour, not everyone's): the type compared as an expression keeps `(type, id)` out of the plan.
    .where(filtered.length > 0 ? sql<number>`(type + 0)` : sql.ref('type'), '=', LOG_TYPE.consume)
    .where((eb) => eb.and([...filtered.map(([dimension, value]) => eb(dimension, '=', value)), bounds(eb)]));
  const by = groupColumns(groups);
  return by.length > 0 ? query.groupBy(by) : query;
};

const hourBound = (db: Db, hour: number, column: 'min_id' | 'max_id') =>
  db.selectFrom(LOG_HOURS_TABLE).select(column).where('hour', '=', hour);

const watermark = (db: Db) =>
  db.selectFrom(ROLLUP_STATE_TABLE).select('last_id').where('name', '=', ROLLUP_STATE_NAME);

/**
 * Raw rows of one partial hour (up to the watermark: an hour's id range holds only those), a branch
 * of its own so that every database reads it as one id range.
 */
export const edgeBranch = (
  db: Db,
  filters: SumFilters,
  groups: SumGroups,
  counted: Counted,
  edge: TimeEdge,
) =>
  rawBranch(db, filters, groups, counted, (eb) =>
    inEdge(eb, edge, hourBound(db, edge.hour, 'min_id'), hourBound(db, edge.hour, 'max_id')),
  );

type IdBound = ReturnType<typeof hourBound> | RawBuilder<number>;

/** An edge's rows: its hour's id range (from subqueries or as values), then its part of the hour. */
const inEdge = (eb: ExpressionBuilder<RollupTables, 'logs'>, edge: TimeEdge, min: IdBound, max: IdBound) =>
  eb.and([
    eb('id', '>=', min),
    eb('id', '<=', max),
    eb(createdAt, '>=', edge.from),
    eb(createdAt, '<', edge.to),
  ]);

/**
 * The same rows of every edge of a piece, with the hours' id ranges read ahead (`bounds`, in the same
 * snapshot) and written as values, in one branch: PostgreSQL plans them as one bitmap of ranges on
 * the index it prefers, where thirty branches cost it more to plan than to run. An hour with nothing
 * folded has no rows here.
 */
export const knownEdgesBranch = (
  db: Db,
  filters: SumFilters,
  groups: SumGroups,
  piece: RawPiece,
  bounds: KnownBounds['hours'],
) => {
  const ranges = piece.edges.flatMap((edge) => {
    const known = bounds.get(edge.hour);
    return known ? [{ ...edge, ...known }] : [];
  });
  if (ranges.length === 0) return [];
  return [
    rawBranch(db, filters, groups, piece, (eb) =>
      eb.or(ranges.map((range) => inEdge(eb, range, sql.lit(range.min), sql.lit(range.max)))),
    ),
  ];
};

/** Raw rows above the watermark (read ahead when `known`): what the job has not folded in yet. */
export const tailBranch = (
  db: Db,
  filters: SumFilters,
  groups: SumGroups,
  window: TimeRange,
  known: number | undefined,
) =>
  rawBranch(db, filters, groups, { offset: 0, weight: 1 }, (eb) =>
    eb.and([
      eb('id', '>', known === undefined ? watermark(db) : sql.lit(known)),
      ...(window.from === undefined ? [] : [eb(createdAt, '>=', window.from)]),
      ...(window.to === undefined ? [] : [eb(createdAt, '<', window.to)]),
    ]),
  );

/** A bucket's time of day (seconds after UTC midnight). */
const timeOfDay = sql<number>`(((bucket % ${sql.lit(DAY)}) + ${sql.lit(DAY)}) % ${sql.lit(DAY)})`;

export const cubeBranch = (
  db: Db,
  cube: CubeDefinition,
  filters: SumFilters,
  groups: SumGroups,
  piece: CubePiece,
) => {
  const { range, skipHourAt, buckets } = piece;
  const query = db
    .selectFrom(cube.name)
    .select(selection('bucket', groups, piece, CUBE_SUMS, sql<string>`model_name`))
    .where((eb) =>
      eb.and([
        eb('span', '=', piece.span),
        ...setFilters(filters).map(([dimension, value]) => eb(dimension, '=', value)),
        ...(buckets
          ? [eb('bucket', 'in', buckets)]
          : [
              ...(range.from === undefined ? [] : [eb('bucket', '>=', range.from)]),
              ...(range.to === undefined ? [] : [eb('bucket', '<', range.to)]),
            ]),
        ...(skipHourAt === undefined ? [] : [eb(timeOfDay, '<>', skipHourAt)]),
      ]),
    );
  const by = groupColumns(groups);
  return by.length > 0 ? query.groupBy(by) : query;
};

type Branch = ReturnType<typeof tailBranch>;

/**
 * The branches read different tables but select the same columns; the UNION ALL needs one type.
 * The cast forgets only which table a branch reads.
 */
export const asBranch = (branch: Branch | ReturnType<typeof cubeBranch>): Branch => branch as Branch;
