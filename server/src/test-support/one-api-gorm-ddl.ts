import type { Dialect } from '../db/dsn.js';

/**
 * one-api v0.6.9's tables as GORM v1.25.10 (its ORM; drivers mysql 1.5.6, postgres 1.5.7, sqlite
 * 1.5.5) creates them, statement for statement, written out by hand from its models' tags and
 * GORM's rules, not from Sluice's code:
 * - Go int, int64 and `type:int` are bigint (integer on SQLite; `type:int` is GORM's "int" kind,
 *   size 64), uint is `bigint unsigned` on MySQL, float64 double / decimal / real, bool boolean /
 *   numeric on SQLite;
 * - a Go string is longtext on MySQL and text elsewhere, but varchar(191) on MySQL when it has an
 *   index, a default or is a primary key; `type:…` tags are written as they are (text, char(32));
 * - `unique` is a constraint named uni_<table>_<column>, `index` / `uniqueIndex` idx_<table>_<field>,
 *   the Go field's name in snake case (GitHubId: idx_users_git_hub_id, not the column github_id);
 * - defaults are quoted with ' on MySQL and PostgreSQL and " on SQLite (GORM's SQLite Explain).
 * On MySQL GORM writes the indexes inside CREATE TABLE; they are separate statements here (the
 * same indexes). `latest` adds the logs columns one-api gained after v0.6.9 (request_id, …).
 */
const TYPES: Record<
  Dialect,
  Record<'id' | 'int' | 'istr' | 'str' | 'bool' | 'float' | 'uint' | 'pk' | 'empty' | 'dflt', string>
> = {
  sqlite: {
    id: 'integer PRIMARY KEY AUTOINCREMENT',
    int: 'integer',
    istr: 'text',
    str: 'text',
    bool: 'numeric',
    float: 'real',
    uint: 'integer',
    pk: '',
    empty: '""',
    dflt: '"default"',
  },
  postgres: {
    id: 'bigserial',
    int: 'bigint',
    istr: 'text',
    str: 'text',
    bool: 'boolean',
    float: 'decimal',
    uint: 'bigint',
    pk: ',PRIMARY KEY (`id`)',
    empty: "''",
    dflt: "'default'",
  },
  mysql: {
    id: 'bigint AUTO_INCREMENT',
    int: 'bigint',
    istr: 'varchar(191)',
    str: 'longtext',
    bool: 'boolean',
    float: 'double',
    uint: 'bigint unsigned',
    pk: ',PRIMARY KEY (`id`)',
    empty: "''",
    dflt: "'default'",
  },
};

const index = (name: string, table: string, columns: string, unique = false) =>
  `CREATE ${unique ? 'UNIQUE ' : ''}INDEX \`${name}\` ON \`${table}\`(${columns})`;

/** one-api's tables and indexes, written as GORM's AutoMigrate writes them (backticks: see toDialect). */
export const oneApiGormDdl = (dialect: Dialect, latest = false): string[] => {
  const t = TYPES[dialect];
  const statements = [
    `CREATE TABLE \`users\` (\`id\` ${t.id},\`username\` ${t.istr},\`password\` ${t.str} NOT NULL,` +
      `\`display_name\` ${t.istr},\`role\` ${t.int} DEFAULT 1,\`status\` ${t.int} DEFAULT 1,\`email\` ${t.istr},` +
      `\`github_id\` ${t.istr},\`wechat_id\` ${t.istr},\`lark_id\` ${t.istr},\`oidc_id\` ${t.istr},` +
      `\`access_token\` char(32),\`quota\` ${t.int} DEFAULT 0,\`used_quota\` ${t.int} DEFAULT 0,` +
      `\`request_count\` ${t.int} DEFAULT 0,\`group\` varchar(32) DEFAULT ${t.dflt},\`aff_code\` varchar(32),` +
      `\`inviter_id\` ${t.int}${t.pk},CONSTRAINT \`uni_users_username\` UNIQUE (\`username\`))`,
    index('idx_users_username', 'users', '`username`'),
    index('idx_users_display_name', 'users', '`display_name`'),
    index('idx_users_email', 'users', '`email`'),
    index('idx_users_git_hub_id', 'users', '`github_id`'),
    index('idx_users_we_chat_id', 'users', '`wechat_id`'),
    index('idx_users_lark_id', 'users', '`lark_id`'),
    index('idx_users_oidc_id', 'users', '`oidc_id`'),
    index('idx_users_access_token', 'users', '`access_token`', true),
    index('idx_users_aff_code', 'users', '`aff_code`', true),
    index('idx_users_inviter_id', 'users', '`inviter_id`'),

    `CREATE TABLE \`tokens\` (\`id\` ${t.id},\`user_id\` ${t.int},\`key\` char(48),\`status\` ${t.int} DEFAULT 1,` +
      `\`name\` ${t.istr},\`created_time\` ${t.int},\`accessed_time\` ${t.int},` +
      `\`expired_time\` ${t.int} DEFAULT -1,\`remain_quota\` ${t.int} DEFAULT 0,` +
      `\`unlimited_quota\` ${t.bool} DEFAULT false,\`used_quota\` ${t.int} DEFAULT 0,` +
      `\`models\` text,\`subnet\` ${t.istr} DEFAULT ${t.empty}${t.pk})`,
    index('idx_tokens_key', 'tokens', '`key`', true),
    index('idx_tokens_name', 'tokens', '`name`'),

    `CREATE TABLE \`channels\` (\`id\` ${t.id},\`type\` ${t.int} DEFAULT 0,\`key\` text,\`status\` ${t.int} DEFAULT 1,` +
      `\`name\` ${t.istr},\`weight\` ${t.uint} DEFAULT 0,\`created_time\` ${t.int},\`test_time\` ${t.int},` +
      `\`response_time\` ${t.int},\`base_url\` ${t.istr} DEFAULT ${t.empty},\`other\` ${t.str},\`balance\` ${t.float},` +
      `\`balance_updated_time\` ${t.int},\`models\` ${t.str},\`group\` varchar(32) DEFAULT ${t.dflt},` +
      `\`used_quota\` ${t.int} DEFAULT 0,\`model_mapping\` varchar(1024) DEFAULT ${t.empty},` +
      `\`priority\` ${t.int} DEFAULT 0,\`config\` ${t.str},\`system_prompt\` text${t.pk})`,
    index('idx_channels_name', 'channels', '`name`'),

    `CREATE TABLE \`abilities\` (\`group\` varchar(32),\`model\` ${t.istr},\`channel_id\` ${t.int},` +
      `\`enabled\` ${t.bool},\`priority\` ${t.int} DEFAULT 0,PRIMARY KEY (\`group\`,\`model\`,\`channel_id\`))`,
    index('idx_abilities_channel_id', 'abilities', '`channel_id`'),
    index('idx_abilities_priority', 'abilities', '`priority`'),

    `CREATE TABLE \`options\` (\`key\` ${t.istr},\`value\` ${t.str},PRIMARY KEY (\`key\`))`,

    `CREATE TABLE \`redemptions\` (\`id\` ${t.id},\`user_id\` ${t.int},\`key\` char(32),\`status\` ${t.int} DEFAULT 1,` +
      `\`name\` ${t.istr},\`quota\` ${t.int} DEFAULT 100,\`created_time\` ${t.int},` +
      `\`redeemed_time\` ${t.int}${t.pk})`,
    index('idx_redemptions_key', 'redemptions', '`key`', true),
    index('idx_redemptions_name', 'redemptions', '`name`'),

    `CREATE TABLE \`logs\` (\`id\` ${t.id},\`user_id\` ${t.int},\`created_at\` ${t.int},\`type\` ${t.int},` +
      `\`content\` ${t.str},\`username\` ${t.istr} DEFAULT ${t.empty},\`token_name\` ${t.istr} DEFAULT ${t.empty},` +
      `\`model_name\` ${t.istr} DEFAULT ${t.empty},\`quota\` ${t.int} DEFAULT 0,\`prompt_tokens\` ${t.int} DEFAULT 0,` +
      `\`completion_tokens\` ${t.int} DEFAULT 0,\`channel_id\` ${t.int}` +
      (latest
        ? `,\`request_id\` ${t.istr} DEFAULT ${t.empty},\`elapsed_time\` ${t.int} DEFAULT 0,` +
          `\`is_stream\` ${t.bool} DEFAULT false,\`system_prompt_reset\` ${t.bool} DEFAULT false`
        : '') +
      `${t.pk})`,
    index('idx_logs_user_id', 'logs', '`user_id`'),
    index('idx_created_at_type', 'logs', '`created_at`,`type`'),
    index('index_username_model_name', 'logs', '`model_name`,`username`'),
    index('idx_logs_token_name', 'logs', '`token_name`'),
    index('idx_logs_model_name', 'logs', '`model_name`'),
    index('idx_logs_channel_id', 'logs', '`channel_id`'),
  ];
  return dialect === 'postgres' ? statements.map((statement) => statement.replaceAll('`', '"')) : statements;
};

/** one-api's seven tables. */
export const ONE_API_TABLE_NAMES = [
  'abilities',
  'channels',
  'logs',
  'options',
  'redemptions',
  'tokens',
  'users',
];
