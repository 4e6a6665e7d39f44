import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Dialect } from '../dsn.js';
import { AUDIT_LOG_TABLE, PASSKEYS_TABLE, RECOVERY_CODES_TABLE, TOTP_TABLE } from './account-tables.js';
import { addColumns, applyTable } from './apply-table.js';
import { ALERT_DELIVERIES_TABLE } from './alert-tables.js';
import { BUDGET_USAGE_TABLE } from './budget-tables.js';
import { createRollupTables } from './log-rollup-migration.js';
import { addModelQuarterStart } from './log-model-quarters.js';
import { addTokenDayBuckets } from './log-token-days.js';
import { alignMysqlTables } from './mysql-gorm-types.js';
import {
  BILLING_TABLES,
  LIMIT_COLUMNS,
  LOG_CLIENT_FORMAT_COLUMNS,
  LOG_ROUTING_COLUMNS,
  LOGS_TABLE,
  ONE_API_TABLES,
  QUOTA_ALERT_COLUMNS,
  SLUICE_TABLES,
} from './table-definitions.js';

// Kysely's migrations work on an untyped database by design: the schema is what they change.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/** Which database a migration set runs on: the main one, or the separate LOG_SQL_DSN one. */
export type MigrationScope = 'main' | 'logs';

const migrationsFor = (
  dialect: Dialect,
  scope: MigrationScope,
  logsInMain: boolean,
): Record<string, Migration> =>
  scope === 'logs'
    ? {
        '0001_logs': { up: (db: AnyDb) => applyTable(db, dialect, LOGS_TABLE) },
        '0002_log_client_format': {
          up: (db: AnyDb) => addColumns(db, dialect, LOGS_TABLE.name, LOG_CLIENT_FORMAT_COLUMNS),
        },
        '0003_log_rollups': { up: (db: AnyDb) => createRollupTables(db, dialect) },
        '0004_log_routing': {
          up: (db: AnyDb) => addColumns(db, dialect, LOGS_TABLE.name, LOG_ROUTING_COLUMNS),
        },
        '0005_log_token_days': { up: (db: AnyDb) => addTokenDayBuckets(db, dialect) },
        '0006_log_model_quarters': { up: (db: AnyDb) => addModelQuarterStart(db, dialect) },
      }
    : {
        '0001_one_api_tables': {
          up: async (db: AnyDb) => {
            for (const table of ONE_API_TABLES) await applyTable(db, dialect, table);
            if (logsInMain) await applyTable(db, dialect, LOGS_TABLE);
          },
        },
        '0002_sluice_tables': {
          up: async (db: AnyDb) => {
            for (const table of SLUICE_TABLES) await applyTable(db, dialect, table);
          },
        },
        '0003_billing_durability': {
          up: async (db: AnyDb) => {
            for (const table of BILLING_TABLES) await applyTable(db, dialect, table);
          },
        },
        '0004_log_client_format': {
          up: async (db: AnyDb) => {
            if (logsInMain) await addColumns(db, dialect, LOGS_TABLE.name, LOG_CLIENT_FORMAT_COLUMNS);
          },
        },
        '0005_gorm_column_types': {
          up: async (db: AnyDb) => {
            if (dialect === 'mysql') await alignMysqlTables(db, ONE_API_TABLES);
          },
        },
        '0006_log_rollups': {
          up: async (db: AnyDb) => {
            if (logsInMain) await createRollupTables(db, dialect);
          },
        },
        '0007_limits': {
          up: async (db: AnyDb) => {
            for (const table of ['tokens', 'users']) await addColumns(db, dialect, table, LIMIT_COLUMNS);
          },
        },
        '0008_audit_log': { up: (db: AnyDb) => applyTable(db, dialect, AUDIT_LOG_TABLE) },
        '0009_two_factor': {
          up: async (db: AnyDb) => {
            for (const table of [TOTP_TABLE, RECOVERY_CODES_TABLE]) await applyTable(db, dialect, table);
          },
        },
        '0010_passkeys': { up: (db: AnyDb) => applyTable(db, dialect, PASSKEYS_TABLE) },
        '0011_alert_deliveries': { up: (db: AnyDb) => applyTable(db, dialect, ALERT_DELIVERIES_TABLE) },
        '0012_budget_usage': { up: (db: AnyDb) => applyTable(db, dialect, BUDGET_USAGE_TABLE) },
        '0013_log_routing': {
          up: async (db: AnyDb) => {
            if (logsInMain) await addColumns(db, dialect, LOGS_TABLE.name, LOG_ROUTING_COLUMNS);
          },
        },
        '0014_quota_alerts': { up: (db: AnyDb) => addColumns(db, dialect, 'users', QUOTA_ALERT_COLUMNS) },
        '0015_budget_slices': { up: (db: AnyDb) => applyTable(db, dialect, BUDGET_USAGE_TABLE) },
        '0016_log_token_days': {
          up: async (db: AnyDb) => {
            if (logsInMain) await addTokenDayBuckets(db, dialect);
          },
        },
        '0017_log_model_quarters': {
          up: async (db: AnyDb) => {
            if (logsInMain) await addModelQuarterStart(db, dialect);
          },
        },
      };

const migratorOf = (db: AnyDb, dialect: Dialect, scope: MigrationScope, logsInMain: boolean): Migrator => {
  const provider: MigrationProvider = {
    getMigrations: () => Promise.resolve(migrationsFor(dialect, scope, logsInMain)),
  };
  return new Migrator({
    db,
    provider,
    migrationTableName: scope === 'main' ? 'sluice_migrations' : 'sluice_log_migrations',
    migrationLockTableName: scope === 'main' ? 'sluice_migrations_lock' : 'sluice_log_migrations_lock',
    // Each migration creates or changes only what is missing or differs, whatever ran before it: a
    // database that ran a later-numbered one first (numbers are handed out to work landing in any
    // order, e.g. 0008 before 0005) runs the earlier one when it arrives instead of refusing to start.
    allowUnorderedMigrations: true,
  });
};

/** The migrations not yet run on the database (read only: a slave waits until there are none). */
export const pendingMigrations = async (
  db: AnyDb,
  dialect: Dialect,
  scope: MigrationScope,
  logsInMain = true,
): Promise<string[]> =>
  (await migratorOf(db, dialect, scope, logsInMain).getMigrations())
    .filter((migration) => migration.executedAt === undefined)
    .map((migration) => migration.name);

/** Runs every pending migration, under Kysely's lock so that several instances may start at once. */
export const migrate = async (
  db: AnyDb,
  dialect: Dialect,
  scope: MigrationScope,
  logsInMain = true,
): Promise<string[]> => {
  const migrator = migratorOf(db, dialect, scope, logsInMain);
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error('migration failed', { cause: error });
  return (results ?? [])
    .filter((result) => result.status === 'Success')
    .map((result) => result.migrationName);
};
