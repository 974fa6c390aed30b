// `npm run demo` (README.md, "See it save, offline") prints everything a person needs to open both consoles: the dashboard's address
// with the email and key to sign in, and the admin console's address with the admin key. The
// demo runs as `npm run demo` runs it (its entry, no --json), and this test signs in with what it
// printed, as the two sign-in forms do, before it stops the demo with one SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
let child: ChildProcess | undefined;

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child!.once('exit', r));
  }
});

/** Starts the demo and resolves with its output once it has printed `ready`. */
function startDemo(ready: RegExp): Promise<string> {
  child = spawn(process.execPath, [join(root, 'demo', 'run.ts')], { cwd: root, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' } });
  let out = '';
  return new Promise((resolve, reject) => {
    child!.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      if (ready.test(out)) resolve(out);
    });
    child!.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    child!.once('exit', (code) => reject(new Error(`the demo exited with ${code} before printing its consoles:\n${out}`)));
  });
}

it('prints both consoles’ addresses and what each signs in with, and both sign-ins work', { timeout: 300_000 }, async () => {
  const out = await startDemo(/^GraphiQL: .*$/m);
  const dashboard = /^dashboard:\s+(\S+)\s+\(sign in with the email (\S+) and the key (\S+)\)$/m.exec(out);
  const admin = /^admin console:\s+(\S+)\s+\(sign in with the admin key (\S+)\)$/m.exec(out);
  const graphiql = /^GraphiQL:\s+(\S+)\s+/m.exec(out);
  expect(dashboard, out).not.toBeNull();
  expect(admin, out).not.toBeNull();
  expect(graphiql, out).not.toBeNull();
  const [, dashboardUrl, email, apiKey] = dashboard!;
  const [, adminUrl, adminKey] = admin!;
  expect(apiKey).toMatch(/^sk-opt-/);

  // both pages are the web app
  for (const url of [dashboardUrl!, adminUrl!]) {
    const page = await fetch(url!);
    expect(page.status, url).toBe(200);
    expect(await page.text()).toMatch(/<div id="root">/);
  }
  // the dashboard's sign-in form: the email and the key make a session
  const origin = new URL(dashboardUrl!).origin;
  const login = await fetch(`${origin}/v1/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, api_key: apiKey }) });
  expect(login.status, await login.clone().text()).toBeLessThan(300);
  expect(login.headers.get('set-cookie')).toMatch(/=/);
  // the admin console's sign-in form: the admin key reads the providers over GraphQL
  const gql = await fetch(graphiql![1]!, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminKey}` },
    body: JSON.stringify({ query: '{ providers { name } }' }),
  });
  const answer = (await gql.json()) as { data?: { providers: { name: string }[] }; errors?: unknown[] };
  expect(answer.errors, JSON.stringify(answer)).toBeUndefined();
  expect(answer.data!.providers.map((p) => p.name)).toContain('replay');

  // one SIGTERM stops the demo (and its gateway)
  child!.kill('SIGTERM');
  const code = await new Promise((r) => child!.once('exit', r));
  expect(code).toBe(0);
});
