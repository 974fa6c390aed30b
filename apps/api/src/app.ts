// Builds the HTTP server: parsers, error envelope, auth, routes and the web app.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { frameworkErrors, installErrorHandler } from './http/error-handler.ts';
import { installInputGuard } from './http/rest-input.ts';
import { notFoundPage, registerWeb } from './http/web.ts';
import { installDoorGuards } from './http/door-guard.ts';
import { registerAdminSignupRoutes } from './routes/admin-signup.ts';
import { FastPath } from './http/fast-path.ts';
import { serverWithFastPath } from './http/fast-server.ts';
import { clientErrorCode, failConnection, type AnswerInFlight, type InFlight } from './http/client-error.ts';
import { parseJsonBody } from './http/json-body.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerSignupRoutes } from './routes/signup.ts';
import { registerSessionRoutes } from './routes/session.ts';
import { registerAdminCatalogRoutes } from './routes/admin-catalog.ts';
import { registerAdminMeterRoutes } from './routes/admin-meter.ts';
import { registerPipelineRoutes } from './http/pipeline-routes.ts';
import { registerModelRoutes } from './routes/models.ts';
import { registerBillingRoutes } from './routes/billing.ts';
import { registerOpenApiRoute } from './openapi/route.ts';
import { recordRoutes } from './http/route-table.ts';
import { registerManagedAgentRoutes } from './routes/managed-agents.ts';
import { registerGraphQL } from './graphql/plugin.ts';
import { registerTrpc } from './trpc/plugin.ts';
import type { Services } from './services.ts';
import { startManagedRuns } from './managed/pipeline-runner.ts';
import type { CapabilityTree } from './capabilities/capability.ts';
import { capabilities } from './capabilities/index.ts';
import { registerCapabilityRoutes } from './capabilities/rest.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON body's text as received. */
    rawBody: string | undefined;
  }
}

export interface AppOptions {
  /** The capabilities the doors serve (default: the gateway's; a test adds its own). */
  capabilities?: CapabilityTree;
}

export async function buildApp(services: Services, options: AppOptions = {}): Promise<FastifyInstance> {
  const set = options.capabilities ?? capabilities;
  startManagedRuns(services); // managed agents' calls run on the completion pipeline
  // The completion route's hot path is read off the socket in front of node:http and Fastify (http/fast-server.ts, http/fast-path.ts).
  let fast: FastPath | null = null;
  let closing = false;
  const app = Fastify({
    serverFactory: serverWithFastPath({
      handler: () => fast,
      bodyLimit: () => services.config.BODY_LIMIT_BYTES,
      headersTimeoutMs: services.config.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: services.config.HTTP_REQUEST_TIMEOUT_MS,
      fastPath: services.config.FAST_PATH === 'on',
    }),
    clientErrorHandler: (err, socket) => {
      if ((err as NodeJS.ErrnoException).code === 'ECONNRESET' || socket.destroyed) return void socket.destroy();
      type NodeAnswer = AnswerInFlight & { req?: { complete: boolean }; _last?: boolean };
      const inFlight = (): InFlight => {
        const m = (socket as { _httpMessage?: NodeAnswer | null })._httpMessage ?? null;
        return m === null ? null : { answer: m, requestComplete: m.req?.complete === true };
      };
      // The parser is done with this connection. Answers still due for complete requests go out
      // before the 400, as on the socket path, so a FIN from here on must not abort them (node:http's
      // end listener would, and only when the bad bytes came before the FIN).
      const now = inFlight();
      if (now !== null && now !== 'closed' && now.requestComplete) {
        for (const l of socket.listeners('end')) if (l.name === 'bound socketOnEnd') socket.off('end', l as () => void);
      }
      failConnection(socket, clientErrorCode(err as NodeJS.ErrnoException), inFlight);
    },
    loggerInstance: services.logger as FastifyBaseLogger,
    bodyLimit: services.config.BODY_LIMIT_BYTES,
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    requestIdHeader: 'x-request-id',
    // X-Forwarded-Proto/-Host are believed only when the operator says a proxy sets them (decides the session cookie's Secure flag and the CSRF origin).
    trustProxy: services.config.TRUST_PROXY,
    routerOptions: { ignoreTrailingSlash: true },
    // the router's own refusals (a path that does not decode, a parameter too long) in the catalogue's envelope
    frameworkErrors,
  });
  recordRoutes(app);
  // each route's body limit and the doors' abuse limits, for every route registered from here on
  installDoorGuards(app, { config: services.config, doors: services.doors, notFound: notFoundPage });
  app.decorateRequest('principal', null);

  app.removeAllContentTypeParsers();
  app.decorateRequest('rawBody', undefined);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    try {
      const parsed = parseJsonBody(body as string);
      // kept, as the socket path keeps it, so a body with nothing to remove goes to the vendor as sent
      req.rawBody = body as string;
      done(null, parsed);
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  // A response that acknowledges a metered call leaves only once its line is in the write-ahead file.
  app.addHook('onSend', (_request, _reply, payload, done) => {
    const written = services.meter.written();
    if (written === null) return done(null, payload);
    written.then(() => done(null, payload), done);
  });

  app.addHook('onResponse', (request, reply, done) => {
    services.metrics.incRoute(request.routeOptions.url ?? 'unknown', reply.statusCode);
    done();
  });

  installErrorHandler(app);
  installInputGuard(app);
  registerHealthRoutes(app, services);
  registerSignupRoutes(app, services);
  registerSessionRoutes(app, services);
  registerAdminCatalogRoutes(app, services);
  registerAdminSignupRoutes(app, services);
  registerAdminMeterRoutes(app, services);
  const hot = registerPipelineRoutes(app, services);
  registerModelRoutes(app, services);
  registerBillingRoutes(app, services);
  registerOpenApiRoute(app, set);
  registerManagedAgentRoutes(app, services);
  registerCapabilityRoutes(app, services, set);
  registerGraphQL(app, services, set);
  await registerTrpc(app, services, set);
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
    completion: hot.completion,
    responses: hot.responses,
    written: () => services.meter.written(),
    closing: () => closing,
    doors: services.doors,
    trustProxy: services.config.TRUST_PROXY,
  });
  return app;
}
