// Lint: the bans that keep the gateway safe, each with the reason a reader sees.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const secretName = '/(key|secret|token|hash|password|signature)$/i';

/** HTTP clients the gateway must not use directly: its outbound calls go through one module. */
const outboundClients = [
  { name: 'undici', message: 'Outbound calls go through apps/api/src/providers/outbound.ts and its HTTP/1.1 client.' },
  { name: 'axios', message: 'Use the outbound module.' },
  { name: 'node-fetch', message: 'Use the outbound module.' },
];

/** Syntax the gateway bans everywhere (the outbound module excepted). */
const bannedSyntax = [
  {
    selector: "MemberExpression[object.name='Math'][property.name='random']",
    message: 'Math.random is predictable: use node:crypto (randomBytes, randomUUID, randomInt) for ids, secrets and jitter.',
  },
  {
    selector: `BinaryExpression[operator=/^[!=]==?$/][left.name=${secretName}]`,
    message: 'Comparing a secret with ===/!== leaks its length and prefix through timing: use constantTimeEqual from security/secrets.ts.',
  },
  {
    selector: `BinaryExpression[operator=/^[!=]==?$/][right.name=${secretName}]`,
    message: 'Comparing a secret with ===/!== leaks its length and prefix through timing: use constantTimeEqual from security/secrets.ts.',
  },
  {
    selector: "CallExpression[callee.property.name=/^(includes|match)$/][callee.object.property.name='message']",
    message: "Branch on an error's code (err.code), never on its message text: messages change between versions and locales.",
  },
  {
    selector: "CallExpression[callee.property.name='request'][callee.object.name=/^(http|https)$/]",
    message: 'No bare http.request for outbound calls: use the outbound module, which checks addresses and sets timeouts.',
  },
];

/**
 * Gateway source files over 400 lines, each two ideas or more in one file (style: "a file past
 * that is two ideas"). THIS LIST MAY ONLY SHRINK: split a file rather than add it here, and take
 * a file off once it is under the limit (lint-bans.test.ts fails while a listed file fits).
 */
/** @type {string[]} */
const OVER_400_LINES = [];

/**
 * Tenant-directed calls (connections, webhooks: a URL a tenant chose) go through one client,
 * providers/tenant-outbound.ts, which checks the URL on write and the address connected to.
 * Outside the vendor path, nothing calls the outbound module (or its HTTP/1.1 client) itself.
 */
const tenantOutboundOnly = 'Tenant-directed calls (connections, webhooks) go through TenantOutbound (apps/api/src/providers/tenant-outbound.ts), the one client that checks the URL and the address connected to: do not call the outbound module directly.';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'tools/**', 'data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: true }],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-globals': [
        'error',
        { name: 'fetch', message: 'Outbound calls go through the one outbound module (apps/api/src/providers/outbound.ts): it checks the address connected to and sets timeouts.' },
      ],
      'no-restricted-syntax': ['error', ...bannedSyntax],
      'no-restricted-imports': [
        'error',
        {
          paths: outboundClients,
        },
      ],
    },
  },
  {
    // Layers: vendors, the optimizer and the caches are used by the completion pipeline, never the other
    // way round, and know nothing of HTTP or of how the services are composed. Shared wire types (usage,
    // SSE, serialized bodies, call events) live in the leaf apps/api/src/wire/.
    files: ['apps/api/src/providers/**/*.ts', 'apps/api/src/optimizer/**/*.ts', 'apps/api/src/cache/**/*.ts', 'apps/api/src/wire/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: outboundClients,
          patterns: [
            {
              group: ['**/pipeline/*', '**/http/*', '**/services.ts', '**/routes/*', '**/trpc/*', '**/graphql/*'],
              message: 'Layering: providers, optimizer, cache and wire do not import the pipeline, HTTP, routes or services.ts; move the shared type to apps/api/src/wire/ or pass what is needed in.',
            },
          ],
        },
      ],
    },
  },
  {
    // The pipeline answers with a Reply value (pipeline/reply.ts), whichever transport received the request.
    files: ['apps/api/src/pipeline/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...outboundClients, { name: 'fastify', message: 'Layering: the pipeline does not know Fastify; it reads a PipelineRequest and returns a Reply (pipeline/reply.ts) that the transport renders.' }],
        },
      ],
    },
  },
  {
    // The wire module is a leaf: nothing of the gateway's own but the error catalogue.
    files: ['apps/api/src/wire/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../*', '!../errors.ts'], message: 'apps/api/src/wire/ is a leaf: it imports only the error catalogue and packages.' }] },
      ],
    },
  },
  {
    // Everything outside the vendor path (providers, pipeline) and the composition root: no direct outbound client.
    files: ['apps/api/src/**/*.ts'],
    ignores: ['apps/api/src/providers/**', 'apps/api/src/pipeline/**', 'apps/api/src/services.ts', 'apps/api/src/optimizer/**', 'apps/api/src/cache/**', 'apps/api/src/wire/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: outboundClients,
          patterns: [
            { group: ['**/providers/outbound.ts'], importNames: ['Outbound', 'publicOnly', 'publicOnlyCheck'], message: tenantOutboundOnly },
            { group: ['**/providers/http1-client.ts', '**/providers/http1/*'], message: tenantOutboundOnly },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        ...bannedSyntax,
        { selector: "CallExpression[callee.property.name='request'][callee.object.property.name='outbound']", message: tenantOutboundOnly },
        { selector: "NewExpression[callee.name=/^(Outbound|Http1Client)$/]", message: tenantOutboundOnly },
      ],
    },
  },
  {
    // Small files with one job: no gateway source file over 400 lines (migrations aside: they are
    // history, never edited once shipped), but for the shrinking list above.
    files: ['apps/api/src/**/*.ts'],
    ignores: ['apps/api/src/db/migrations/**', ...OVER_400_LINES],
    rules: { 'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }] },
  },
  {
    // The outbound module is the one place that talks to the network.
    files: ['apps/api/src/providers/outbound.ts', 'apps/api/src/providers/outbound/**/*.ts'],
    rules: { 'no-restricted-imports': 'off', 'no-restricted-syntax': 'off' },
  },
  {
    // Tests, benchmarks, the demo, the mock vendors and the web app are clients, not the gateway's outbound path.
    files: ['**/test/**', 'bench/**', 'demo/**', 'packages/mock-providers/**', 'packages/sdk/**', 'apps/admin-web/**', 'scripts/**', '*.config.ts'],
    rules: { 'no-restricted-globals': 'off', 'no-restricted-imports': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
