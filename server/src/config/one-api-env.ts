// What Sluice does with one-api's environment: the variables it ignores, its placeholder secret and
// its database file.

/** one-api's compose file ships this placeholder; one-api ignores it (a random secret), so does Sluice. */
export const PLACEHOLDER_SECRET = 'random_string';

/** one-api's default database file, used when SQLITE_PATH is unset and it exists. */
export const ONE_API_SQLITE_PATH = './one-api.db';

/**
 * one-api's variables that Sluice does not read, and why: set, each is said once in the log at start
 * (the README's configuration section lists them too).
 */
export const ONE_API_IGNORED: Readonly<Record<string, string>> = {
  THEME: "Sluice's console has one theme, light or dark as the browser prefers",
  MEMORY_CACHE_ENABLED:
    'keys, users and channels are always kept in memory, changes reaching every instance at once',
  BATCH_UPDATE_ENABLED: 'billing is always written in batches (every 25 ms), journaled first',
  BATCH_UPDATE_INTERVAL: 'billing is always written in batches (every 25 ms), journaled first',
  SQL_MAX_IDLE_CONNS: 'the pools keep idle connections as their drivers do; SQL_MAX_OPEN_CONNS bounds them',
  SQL_MAX_LIFETIME: 'the pools replace broken connections themselves',
  ENFORCE_INCLUDE_USAGE: 'Sluice always asks the upstream for a stream’s usage',
  TIKTOKEN_CACHE_DIR: 'the tokenizer is bundled: nothing is downloaded',
  DATA_GYM_CACHE_DIR: 'the tokenizer is bundled: nothing is downloaded',
  GIN_MODE: 'Sluice is not a Gin application; DEBUG sets the log level',
  METRIC_SUCCESS_CHAN_SIZE: 'the success rate is counted without a channel buffer',
  METRIC_FAIL_CHAN_SIZE: 'the success rate is counted without a channel buffer',
  USER_CONTENT_REQUEST_PROXY: 'image URLs are passed to the providers, not fetched by Sluice',
  USER_CONTENT_REQUEST_TIMEOUT: 'image URLs are passed to the providers, not fetched by Sluice',
};

/** SQLITE_PATH, or one-api's own database file when it is unset and that file exists. */
export const sqlitePathOf = (
  env: Readonly<Record<string, string | undefined>>,
  parsed: string,
  fileExists: (path: string) => boolean,
  warnings: string[],
): string => {
  if ((env['SQLITE_PATH'] ?? '').trim() !== '' || (env['SQL_DSN'] ?? '').trim() !== '') return parsed;
  if (!fileExists(ONE_API_SQLITE_PATH)) return parsed;
  warnings.push(
    `SQLITE_PATH is not set and one-api's database ${ONE_API_SQLITE_PATH} is here: Sluice uses it (set SQLITE_PATH to choose another file)`,
  );
  return ONE_API_SQLITE_PATH;
};
