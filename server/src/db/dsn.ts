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

/** `host:port`, `[v6]:port` or a bare host (an unbracketed IPv6 literal is a host, as in Go's driver). */
const hostAndPort = (address: string): { host: string; port: number } => {
  const match = /^(?:\[(?<v6>[^\]]*)\]|(?<name>[^:]*))(?::(?<port>\d*))?$/.exec(address);
  if (!match?.groups) return { host: address, port: 3306 };
  const host = match.groups['v6'] ?? match.groups['name'] ?? '';
  const port = match.groups['port'];
  return { host: host || '127.0.0.1', port: port ? Number(port) : 3306 };
};

/**
 * Parses a MySQL DSN in one-api's Go form `user:pass@tcp(host:port)/db?tls=skip-verify` or as a
 * `mysql://user:pass@host:port/db` URL. As in the Go driver, the password may hold `@`, `:` and `/`.
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
    /^(?<user>[^:]*?)(?::(?<password>.*))?@(?<net>tcp|unix)\((?<address>[^)]*)\)\/(?<database>[^?]*)(?:\?(?<params>.*))?$/.exec(
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
  const { host, port } = hostAndPort(address);
  return { host, port, user, password, database, ...(ssl ? { ssl } : {}) };
};
