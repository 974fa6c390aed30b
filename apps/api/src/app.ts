// Builds the HTTP server: parsers, error envelope, auth, routes and the web app.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { ApiError } from './errors.ts';
import { installErrorHandler } from './http/error-handler.ts';
import { registerWeb } from './http/web.ts';
import { FastPath } from './http/fast-path.ts';
import { serverWithFastPath } from './http/fast-server.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerSignupRoutes } from './routes/signup.ts';
import { registerSessionRoutes } from './routes/session.ts';
import { registerAgentRoutes } from './routes/agents.ts';
import { registerProviderKeyRoutes } from './routes/provider-keys.ts';
import { registerAdminCatalogRoutes } from './routes/admin-catalog.ts';
import { registerPipelineRoutes } from './http/pipeline-routes.ts';
import { registerCallRoutes } from './routes/calls.ts';
import { registerWorkflowRoutes } from './routes/workflows.ts';
import { registerReportRoutes } from './routes/reports.ts';
import { registerModelRoutes } from './routes/models.ts';
import { registerOptimizerRoutes } from './routes/optimizer.ts';
import { registerStepRoutes } from './routes/steps.ts';
import { registerDiscoveryRoutes } from './routes/discovery.ts';
import { registerGraphQL } from './graphql/plugin.ts';
import { registerTrpc } from './trpc/plugin.ts';
import type { Services } from './services.ts';

export async function buildApp(services: Services): Promise<FastifyInstance> {
  // The completion route's hot path is read off the socket in front of node:http and Fastify (http/fast-server.ts, http/fast-path.ts).
  let fast: FastPath | null = null;
  let closing = false;
  const app = Fastify({
    serverFactory: serverWithFastPath(() => fast, () => services.config.BODY_LIMIT_BYTES),
    loggerInstance: services.logger as FastifyBaseLogger,
    bodyLimit: services.config.BODY_LIMIT_BYTES,
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    requestIdHeader: 'x-request-id',
    // X-Forwarded-Proto/-Host are believed only when the operator says a proxy sets them (decides the session cookie's Secure flag and the CSRF origin).
    trustProxy: services.config.TRUST_PROXY,
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.decorateRequest('principal', null);

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new ApiError('invalid_json', 'The request body is not valid JSON.'), undefined);
    }
  });

  // A response that acknowledges a metered call leaves only once its line is in the write-ahead file.
  app.addHook('onSend', (_request, _reply, payload, done) => {
    const written = services.meter.written();
    if (written === null) return done(null, payload);
    written.then(() => done(null, payload), done);
  });

  app.addHook('onResponse', (request, reply, done) => {
    services.metrics.requests.incRoute(request.routeOptions.url ?? 'unknown', reply.statusCode);
    done();
  });

  installErrorHandler(app);
  registerHealthRoutes(app, services);
  registerSignupRoutes(app, services);
  registerSessionRoutes(app, services);
  registerAgentRoutes(app, services);
  registerProviderKeyRoutes(app, services);
  registerAdminCatalogRoutes(app, services);
  const completion = registerPipelineRoutes(app, services);
  registerCallRoutes(app, services);
  registerWorkflowRoutes(app, services);
  registerReportRoutes(app, services);
  registerModelRoutes(app, services);
  registerOptimizerRoutes(app, services);
  registerStepRoutes(app, services);
  registerDiscoveryRoutes(app, services);
  registerGraphQL(app, services);
  await registerTrpc(app, services);
  registerWeb(app);

  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fast = new FastPath({
    logger: services.logger,
    metrics: services.metrics,
    cachedKey: (key) => services.keys.cached(key),
    resolveKey: (key) => services.keys.resolve(key),
    completion,
    written: () => services.meter.written(),
    closing: () => closing,
  });
  return app;
}
