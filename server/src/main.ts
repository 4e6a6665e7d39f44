import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { pino } from 'pino';
import { loggerOptions } from './lib/log-options.js';
import { bootSluice } from './boot.js';
import { ConfigError, readConfig } from './config/env.js';

/**
 * How long SIGTERM waits for requests in flight before it cuts them: with the settlements' 5 s of
 * grace after it, within the 30 s Kubernetes gives.
 */
const SHUTDOWN_DRAIN_MS = 20_000;

const start = async (): Promise<void> => {
  let config;
  try {
    config = readConfig(process.env, () => randomBytes(32).toString('hex'));
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`sluice: configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  // Buffered, asynchronous writes: a synchronous write per request line costs the relay more than it adds.
  const destination = pino.destination({ sync: false, minLength: 4096 });
  const logger = pino(loggerOptions(config.debug ? 'debug' : 'info'), destination);
  setInterval(() => destination.flush(), 1000).unref();
  for (const warning of config.warnings) logger.warn(warning);
  if (
    config.sessionSecretGenerated &&
    !config.warnings.some((warning) => warning.startsWith('SESSION_SECRET'))
  )
    logger.warn('SESSION_SECRET is not set: a random one is used, so sessions end when Sluice restarts');
  const sluice = await bootSluice(config, logger);
  sluice.startTimers();
  let closing = false;
  // Once shutting down, every answer says `Connection: close`: a busy keep-alive client goes elsewhere.
  const server = createServer((request, response) => {
    if (closing) response.setHeader('connection', 'close');
    sluice.listener(request, response);
  });
  // A port taken (or not ours to take) is said plainly, and what booted is closed before the exit.
  server.once('error', (error: NodeJS.ErrnoException) => {
    const reason =
      error.code === 'EADDRINUSE'
        ? `port ${config.port} is already in use (set PORT to a free one)`
        : error.code === 'EACCES'
          ? `port ${config.port} may not be opened by this user (set PORT to one above 1023)`
          : error.message;
    process.stderr.write(`sluice: failed to start: ${reason}\n`);
    logger.error({ err: error }, `failed to start: ${reason}`);
    void sluice
      .close()
      .catch(() => undefined)
      .then(() => {
        destination.flushSync();
        process.exit(1);
      });
  });
  server.listen(config.port, () => {
    logger.info(`Sluice listening on http://localhost:${config.port}`);
  });
  // SIGTERM drains: no new connection; requests in flight (streams included) run to their end and
  // their connections close cleanly as each goes idle; then the settlements are written. Past
  // SHUTDOWN_DRAIN_MS what is still open is cut (a cut stream is billed for what it delivered).
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down: draining requests in flight');
    closing = true;
    const exit = (code: number) => {
      destination.flushSync();
      process.exit(code);
    };
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    const cut = setTimeout(() => server.closeAllConnections(), SHUTDOWN_DRAIN_MS);
    server.close(() => {
      clearInterval(idle);
      clearTimeout(cut);
      sluice.close().then(
        () => exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          exit(1);
        },
      );
    });
    server.closeIdleConnections();
    setTimeout(() => exit(1), SHUTDOWN_DRAIN_MS + 15_000).unref();
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
};

start().catch((error: unknown) => {
  process.stderr.write(
    `sluice: failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
