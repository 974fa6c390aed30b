// Serves the built web app under /optimizer/ and answers every unknown path with
// its HTML page and status 404 (the single-page-app fallback of the spec), before any body.
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const distDir = resolve(fileURLToPath(new URL('../../../admin-web/dist', import.meta.url)));
const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};
const fallbackPage = '<!doctype html><html><head><meta charset="utf-8"><title>Optimizer</title></head><body><div id="root"><h1>Not found</h1><p>The web app is not built.</p></div></body></html>';

async function indexHtml(): Promise<string> {
  const p = join(distDir, 'index.html');
  return existsSync(p) ? readFile(p, 'utf8') : fallbackPage;
}

const securityHeaders = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'",
};

let cachedIndex: string | null = null;
const page = async () => (cachedIndex ??= await indexHtml());

/**
 * The answer to an unknown path: the web app's page with status 404. Given as soon as the head is
 * read (http/door-guard.ts), so a body sent to an unknown path is never read.
 */
export async function notFoundPage(_request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  return reply.status(404).headers(securityHeaders).type('text/html; charset=utf-8').send(await page());
}

export function registerWeb(app: FastifyInstance): void {

  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const rel = (request.params as { '*': string })['*'] ?? '';
    const file = normalize(join(distDir, rel));
    if (rel && file.startsWith(distDir + sep) && extname(file) && existsSync(file)) {
      const body = await readFile(file);
      const immutable = rel.startsWith('assets/');
      return reply
        .headers(securityHeaders)
        .header('content-type', types[extname(file)] ?? 'application/octet-stream')
        .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
        .send(body);
    }
    if (extname(rel)) return reply.status(404).headers(securityHeaders).type('text/html; charset=utf-8').send(await page());
    return reply.headers(securityHeaders).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(await page());
  };
  app.get('/optimizer', serve);
  app.get('/optimizer/*', serve);

  app.setNotFoundHandler(notFoundPage);
}
