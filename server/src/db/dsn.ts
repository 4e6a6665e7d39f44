export type Dialect = 'sqlite' | 'postgres' | 'mysql';

export interface MysqlConnection {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  socketPath?: string;
  ssl?: { rejectUnauthorized: boolean };
}

/** Which database a DSN names: empty → SQLite, postgres:// → PostgreSQL, anything else → MySQL. */
export const dialectOf = (dsn: string): Dialect => {
  if (dsn.trim() === '') return 'sqlite';
  if (/^postgres(ql)?:\/\//.test(dsn)) return 'postgres';
  return 'mysql';
};

/**
 * Parses a MySQL DSN in one-api's Go form `user:pass@tcp(host:port)/db?tls=skip-verify` or as a
 * `mysql://user:pass@host:port/db` URL.
 */
export const parseMysqlDsn = (dsn: string): MysqlConnection => {
  if (dsn.startsWith('mysql://')) {
    const url = new URL(dsn);
    return {
      host: url.hostname || '127.0.0.1',
      port: url.port ? Number(url.port) : 3306,
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: decodeURIComponent(url.pathname.replace(/^\//, '')),
      ...(url.searchParams.has('ssl') || url.searchParams.get('tls') === 'skip-verify'
        ? { ssl: { rejectUnauthorized: false } }
        : {}),
    };
  }
  const match =
    /^(?<user>[^:@]*)(?::(?<password>[^@]*))?@(?<net>tcp|unix)\((?<address>[^)]*)\)\/(?<database>[^?]*)(?:\?(?<params>.*))?$/.exec(
      dsn,
    );
  if (!match?.groups) throw new Error('SQL_DSN is not a valid MySQL DSN');
  const { user = '', password = '', net, address = '', database = '', params = '' } = match.groups;
  const query = new URLSearchParams(params);
  const tls = query.get('tls');
  const ssl =
    tls === 'skip-verify' || tls === 'preferred'
      ? { rejectUnauthorized: false }
      : tls === 'true'
        ? { rejectUnauthorized: true }
        : undefined;
  if (net === 'unix')
    return {
      host: 'localhost',
      port: 3306,
      user,
      password,
      database,
      socketPath: address,
      ...(ssl ? { ssl } : {}),
    };
  const [host = '127.0.0.1', port = '3306'] = address.split(':');
  return { host: host || '127.0.0.1', port: Number(port), user, password, database, ...(ssl ? { ssl } : {}) };
};
