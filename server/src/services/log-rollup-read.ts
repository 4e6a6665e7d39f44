import { sql, type Kysely } from 'kysely';
import {
  CUBES,
  QUARTER,
  QUARTERS_STATE_NAME,
  ROLLUP_STATE_TABLE,
  withRollups,
  type CubeDefinition,
} from '../db/log-rollup-tables.js';
import { sqlNumber } from '../db/sql-number.js';
import type { Tables } from '../db/tables.js';
import { plansBlindToSubqueries, readKnownBounds, type KnownBounds } from './log-hour-bounds.js';
import {
  asBranch,
  cubeBranch,
  edgeBranch,
  knownEdgesBranch,
  setFilters,
  tailBranch,
  type Db,
  type SumFilters,
  type SumGroups,
  type Sums,
} from './log-sum-branches.js';
import { planTimeWindow, type TimeRange } from './log-time-plan.js';

export type { SumFilters, SumGroups, Sums } from './log-sum-branches.js';

export interface SumRow extends Sums {
  /** The day's first second in the caller's zone, as a Unix time shifted by `dayShift`. */
  readonly day: number;
  readonly model_name: string;
}

/** The smallest cube keyed by every dimension filtered on. */
export const cubeFor = (filters: SumFilters): CubeDefinition => {
  const wanted = setFilters(filters).map(([dimension]) => dimension);
  const cube = CUBES.find((candidate) =>
    wanted.every((dimension) => candidate.dimensions.includes(dimension)),
  );
  if (!cube) throw new Error('no cube covers the filters');
  return cube;
};

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
 * Consumption sums (type-2 rows) over a window, exact at any moment, in one snapshot: the cube's
 * day and hour buckets inside the window, the raw rows of the window's partial hours found through
 * the hours' id ranges, and the raw rows above the watermark. Its cost is the buckets' and the
 * edges', not the window's rows. On SQLite and MySQL it is one statement, the ranges and the
 * watermark read in subqueries; on PostgreSQL they are read first and written in as values, both
 * statements in one read-only repeatable-read transaction.
 */
export const readSums = async (
  logDb: Kysely<Tables>,
  filters: SumFilters,
  window: TimeRange,
  groups: SumGroups = {},
): Promise<SumRow[]> => {
  const cube = cubeFor(filters);
  const quarters = cube.spans.includes(QUARTER) ? await quartersFrom(logDb) : undefined;
  const plan = planTimeWindow(
    window,
    groups.dayShift,
    quarters === undefined ? cube.spans.filter((span) => span !== QUARTER) : cube.spans,
    quarters,
  );
  const hours = plan.raws.flatMap((piece) => piece.edges.map((edge) => edge.hour));
  const read = (db: Db, known?: KnownBounds) => sumsOf(db, cube, filters, window, groups, plan, known);
  if (!plansBlindToSubqueries(logDb)) return read(withRollups(logDb));
  // PostgreSQL: the watermark and the edges' id ranges as values (log-hour-bounds.ts), in one snapshot.
  return logDb
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (trx) => {
      const db = withRollups(trx);
      return read(db, await readKnownBounds(db, hours));
    });
};

const sumsOf = async (
  db: Db,
  cube: CubeDefinition,
  filters: SumFilters,
  window: TimeRange,
  groups: SumGroups,
  plan: ReturnType<typeof planTimeWindow>,
  known: KnownBounds | undefined,
): Promise<SumRow[]> => {
  const branches = [
    ...plan.cubes.map((piece) => cubeBranch(db, cube, filters, groups, piece)),
    ...plan.raws.flatMap((piece) =>
      known
        ? knownEdgesBranch(db, filters, groups, piece, known.hours)
        : piece.edges.map((edge) => edgeBranch(db, filters, groups, piece, edge)),
    ),
    tailBranch(db, filters, groups, window, known?.watermark),
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
