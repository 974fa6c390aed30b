import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

describe('configuration is validated once at boot', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ PORT: 8080, HOST: '127.0.0.1', DATA_DIR: './data', LOG_LEVEL: 'info' });
  });

  it('names a malformed value and what is wrong with it', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT="eighty" is invalid/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL="mysql:\/\/x" is invalid: must be a URL starting with postgres:/);
    expect(() => loadConfig({ OPTIMIZER_MASTER_KEY: 'short' })).toThrow(/OPTIMIZER_MASTER_KEY.*32 bytes/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL="loud"/);
  });

  it('opens no address to tenant-directed calls unless the operator lists it, and names a malformed entry at boot', () => {
    expect(loadConfig({}).OUTBOUND_ALLOW_LIST).toEqual([]);
    expect(loadConfig({ OUTBOUND_ALLOW_LIST: '127.0.0.1/32, 10.1.0.0/16,::1' }).OUTBOUND_ALLOW_LIST).toEqual(['127.0.0.1/32', '10.1.0.0/16', '::1']);
    for (const v of ['localhost', '127.0.0.1/33', '10.0.0.0/8/1', '10.0.0.0/x', 'http://127.0.0.1']) {
      expect(() => loadConfig({ OUTBOUND_ALLOW_LIST: v })).toThrow(/OUTBOUND_ALLOW_LIST=.* is invalid: .*addresses or CIDR blocks/);
    }
  });

  it('caps managed runs at 100 a month unless set', () => {
    expect(loadConfig({}).MANAGED_RUN_CAP).toBe(100);
    expect(loadConfig({ MANAGED_RUN_CAP: '3' }).MANAGED_RUN_CAP).toBe(3);
    expect(() => loadConfig({ MANAGED_RUN_CAP: '-1' })).toThrow(/MANAGED_RUN_CAP="-1" is invalid/);
  });

  it('refuses a vendor base URL with credentials, a query string or a fragment', () => {
    expect(loadConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }).OPENAI_BASE_URL).toBe('http://127.0.0.1:9/v1');
    for (const v of ['http://u:p@127.0.0.1:9/v1', 'http://127.0.0.1:9/v1?key=x', 'http://127.0.0.1:9/v1#f']) {
      expect(() => loadConfig({ GEMINI_BASE_URL: v })).toThrow(/GEMINI_BASE_URL=.* is invalid: must not carry credentials/);
    }
  });

  it('bounds the largest vendor response read, 64 MiB unless set', () => {
    expect(loadConfig({}).UPSTREAM_MAX_RESPONSE_BYTES).toBe(64 * 1024 * 1024);
    expect(loadConfig({ UPSTREAM_MAX_RESPONSE_BYTES: '1048576' }).UPSTREAM_MAX_RESPONSE_BYTES).toBe(1048576);
    expect(() => loadConfig({ UPSTREAM_MAX_RESPONSE_BYTES: '0' })).toThrow(/UPSTREAM_MAX_RESPONSE_BYTES="0" is invalid: must be at least 65536/);
    expect(() => loadConfig({ UPSTREAM_MAX_RESPONSE_BYTES: 'lots' })).toThrow(/UPSTREAM_MAX_RESPONSE_BYTES="lots" is invalid/);
    expect(() => loadConfig({ UPSTREAM_MAX_RESPONSE_BYTES: String(2 ** 31) })).toThrow(/at most 1073741824/);
  });

  it("defaults the HTTP deadlines to node:http's own, and refuses a headers deadline beyond the request's", () => {
    const c = loadConfig({});
    const node = new Server();
    expect(c.HTTP_HEADERS_TIMEOUT_MS).toBe(node.headersTimeout);
    expect(c.HTTP_REQUEST_TIMEOUT_MS).toBe(node.requestTimeout);
    expect(c.FAST_PATH).toBe('on');
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '1000' })).toThrow(/HTTP_HEADERS_TIMEOUT_MS="5000" is invalid: must not exceed HTTP_REQUEST_TIMEOUT_MS/);
    expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '0' })).toThrow(/HTTP_REQUEST_TIMEOUT_MS="0" is invalid/);
    expect(() => loadConfig({ FAST_PATH: 'maybe' })).toThrow(/FAST_PATH="maybe" is invalid/);
  });

  it('refuses an unknown OPTIMIZER_ setting as a likely typo', () => {
    expect(() => loadConfig({ OPTIMIZER_MASTERKEY: 'x' })).toThrow(/unknown setting OPTIMIZER_MASTERKEY/);
  });

  it('stops the real boot fast with a message naming the bad value', () => {
    const r = spawnSync(process.execPath, [join(import.meta.dirname, '../src/main.ts')], {
      env: { PATH: process.env.PATH, PORT: '99999', DATA_DIR: mkdtempSync(join(tmpdir(), 'optimizer-cfg-')) },
      encoding: 'utf8',
      timeout: 80_000, // loading the gateway's modules alone can take 20 s on a loaded 2-core machine
    });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain('PORT="99999" is invalid');
  }, 90_000);
});
