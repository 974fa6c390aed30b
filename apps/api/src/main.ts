// Starts the gateway: config, services, HTTP server, and a graceful stop on
// SIGTERM/SIGINT (in-flight requests finish, pending metering is written).
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { createServices } from './services.ts';
import { missingNodeFlags } from './node-flags.ts';

let config;
try {
  config = loadConfig();
} catch (e) {
  if (e instanceof ConfigError) {
    process.stderr.write(`${e.message}\n`);
    process.exit(78);
  }
  throw e;
}

const logger = createLogger(config.LOG_LEVEL);
const missing = missingNodeFlags();
if (missing.length > 0) logger.warn({ missing }, 'started without the V8 flags in apps/api/node-flags.json: a burst of requests may grow memory for good (start with `npm start`, or pass them to node)');
const services = await createServices(config, logger);
const app = await buildApp(services);
await app.listen({ port: config.PORT, host: config.HOST });
logger.info({ database: services.db.kind, hot: services.hot.kind }, 'optimizer gateway ready');

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping: finishing in-flight requests');
  const force = setTimeout(() => {
    logger.error('in-flight requests did not finish in 25 s; exiting');
    process.exit(1);
  }, 25_000);
  force.unref();
  // Keep-alive connections that go idle once their request finishes are closed too.
  const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
  await app.close();
  clearInterval(sweep);
  await services.close();
  logger.info('stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
