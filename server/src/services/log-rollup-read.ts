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
  CUBES,
  DAY,
  LOG_HOURS_TABLE,
  QUARTER,
  QUARTERS_STATE_NAME,
  ROLLUP_STATE_NAME,
  ROLLUP_STATE_TABLE,
  withRollups,
  type CubeDefinition,
  type Dimension,
  type RollupTables,
} from '../db/log-rollup-tables.js';
import { sqlNumber } from '../db/sql-number.js';
import type { Tables } from '../db/tables.js';
import { planTimeWindow, type CubePiece, type TimeEdge, type TimeRange } from './log-time-plan.js';

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

export interface SumRow extends Sums {
  /** The day's first second in the caller's zone, as a Unix time shifted by `dayShift`. */
  readonly day: number;
  readonly model_name: string;
}

const setFilters = (filters: SumFilters) =>
  (Object.entries(filters) as [Dimension, string | number | undefined][]).filter(
    (entry): entry is [Dimension, string | number] =>
      entry[1] !== undefined && entry[1] !== '' && entry[1] !== 0,
  );

/** The smallest cube keyed by every dimension filtered on. */
export const cubeFor = (filters: SumFilters): CubeDefinition => {
  const wanted = setFilters(filters).map(([dimension]) => dimension);
  const cube = CUBES.find((candidate) =>
    wanted.every((dimension) => candidate.dimensions.includes(dimension)),
  );
  if (!cube) throw new Error('no cube covers the filters');
  return cube;
};

type Db = Kysely<RollupTables>;

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
 * of its own so that every database reads it as one primary-key range.
 */
const edgeBranch = (db: Db, filters: SumFilters, groups: SumGroups, counted: Counted, edge: TimeEdge) =>
  rawBranch(db, filters, groups, counted, (eb) =>
    eb.and([
      eb('id', '>=', hourBound(db, edge.hour, 'min_id')),
      eb('id', '<=', hourBound(db, edge.hour, 'max_id')),
      eb(createdAt, '>=', edge.from),
      eb(createdAt, '<', edge.to),
    ]),
  );

/** Raw rows above the watermark: what the job has not folded in yet. */
const tailBranch = (db: Db, filters: SumFilters, groups: SumGroups, window: TimeRange) =>
  rawBranch(db, filters, groups, { offset: 0, weight: 1 }, (eb) =>
    eb.and([
      eb('id', '>', watermark(db)),
      ...(window.from === undefined ? [] : [eb(createdAt, '>=', window.from)]),
      ...(window.to === undefined ? [] : [eb(createdAt, '<', window.to)]),
    ]),
  );

/** A bucket's time of day (seconds after UTC midnight). */
const timeOfDay = sql<number>`(((bucket % ${sql.lit(DAY)}) + ${sql.lit(DAY)}) % ${sql.lit(DAY)})`;

const cubeBranch = (
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
const asBranch = (branch: Branch | ReturnType<typeof cubeBranch>): Branch => branch as Branch;

/** Per logs database: the hour from which `by_model`'s quarters are whole (fixed by migration 0017). */
const quartersFromOf = new WeakMap<Kysely<Tables>, number>();

const quartersFrom = async (logDb: Kysely<Tables>): Promise<number | undefined> => {
  const known = quartersFromOf.get(logDb);
  if (known !== undefined) return known;
  const row = await withRollups(logDb)
    .selectFrom(ROLLUP_STATE_TABLE)
    .select('last_id')
    .where('name', '=', QUARTERS_STATE_NAME)
    .executeTakeFirst();
  if (!row) return undefined;
  const from = sqlNumber(row.last_id);
  quartersFromOf.set(logDb, from);
  return from;
};

/**
 * Consumption sums (type-2 rows) over a window, exact at any moment, in one statement (so one
 * snapshot on every database): the cube's day and hour buckets inside the window, the raw rows of
 * the window's partial hours found through the hours' id ranges, and the raw rows above the
 * watermark. Its cost is the buckets' and the edges', not the window's rows.
 */
export const readSums = async (
  logDb: Kysely<Tables>,
  filters: SumFilters,
  window: TimeRange,
  groups: SumGroups = {},
): Promise<SumRow[]> => {
  const db = withRollups(logDb);
  const cube = cubeFor(filters);
  const quarters = cube.spans.includes(QUARTER) ? await quartersFrom(logDb) : undefined;
  const plan = planTimeWindow(
    window,
    groups.dayShift,
    quarters === undefined ? cube.spans.filter((span) => span !== QUARTER) : cube.spans,
    quarters,
  );
  const branches = [
    ...plan.cubes.map((piece) => cubeBranch(db, cube, filters, groups, piece)),
    ...plan.raws.flatMap((piece) => piece.edges.map((edge) => edgeBranch(db, filters, groups, piece, edge))),
    tailBranch(db, filters, groups, window),
  ];
  const [first, ...rest] = branches.map(asBranch);
  if (!first) return [];
  const union = rest.reduce((all, branch) => all.unionAll(branch), first);
  const rows = await db
    .selectFrom(union.as('parts'))
    .select([
      'parts.day',
      'parts.model_name',
      sql<number>`SUM(parts.requests)`.as('requests'),
      sql<number>`SUM(parts.quota)`.as('quota'),
      sql<number>`SUM(parts.prompt_tokens)`.as('prompt_tokens'),
      sql<number>`SUM(parts.completion_tokens)`.as('completion_tokens'),
    ])
    .groupBy(['parts.day', 'parts.model_name'])
    .having(sql<number>`SUM(parts.requests)`, '<>', 0)
    .execute();
  return rows.map((row) => ({
    day: sqlNumber(row.day),
    model_name: String(row.model_name ?? ''),
    requests: sqlNumber(row.requests),
    quota: sqlNumber(row.quota),
    prompt_tokens: sqlNumber(row.prompt_tokens),
    completion_tokens: sqlNumber(row.completion_tokens),
  }));
};

/** The window of a log filter: `start_timestamp` and `end_timestamp` are inclusive, 0 is unset. */
export const windowOf = (start: number | undefined, end: number | undefined): TimeRange => ({
  ...(start ? { from: start } : {}),
  ...(end ? { to: end + 1 } : {}),
});
