// Bulk catalog importer: reads a JSON or CSV catalog file, checks every row, compares
// it with the gateway's live catalog and applies the difference through the admin API.
//
//   npm run import-catalog -- <file.json|file.csv> --url http://127.0.0.1:8080
//       [--admin-key K | env ADMIN_KEY] [--dry-run] [--disable-missing]
//
// Exit codes: 0 done (or nothing to do), 1 invalid file or a write the gateway refused,
// 2 usage.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { OptimizerClient } from '../../packages/sdk/src/index.ts';
import { applySteps, describeError, planSteps, type CatalogApi, type Step } from './apply.ts';
import { diffCatalog } from './diff.ts';
import { CatalogFileError, checkFailoverReferences, formatRowError, readCatalogFile, validateRows } from './parse.ts';

const usage = `usage: npm run import-catalog -- <file.json|file.csv> --url <gateway origin> [--admin-key <key>] [--dry-run] [--disable-missing]

  <file>              a JSON array of model profiles (or {"models": [...]}), or a CSV whose
                      header row names profile fields; list cells use |, strengths code=0.8|chat=0.7
  --url               the gateway, e.g. http://127.0.0.1:8080
  --admin-key         the platform admin key (default: the ADMIN_KEY environment variable)
  --dry-run           print the plan and change nothing
  --disable-missing   also disable live models the file leaves out

exit codes: 0 ok, 1 invalid file or a refused write, 2 usage`;

function usageError(message: string): never {
  console.error(`import-catalog: ${message}\n\n${usage}`);
  process.exit(2);
}

const show = (v: unknown) => JSON.stringify(v);

function describeStep(s: Step): string {
  switch (s.kind) {
    case 'create':
      return `+ create  ${s.model} (${s.profile.provider})${s.deferred?.length ? ` — failover ${show(s.deferred)} linked after they exist` : ''}`;
    case 'update':
      return `~ update  ${s.model}: ${s.changes.map((c) => `${c.field} ${show(c.from)} → ${show(c.to)}`).join('; ')}`;
    case 'link':
      return `~ link    ${s.model}: failover ${show(s.profile.failover)}`;
    case 'disable':
      return `- disable ${s.model} (not in the file)`;
  }
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: process.argv.slice(2),
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        'admin-key': { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
        'disable-missing': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (e) {
    usageError((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(usage);
    return 0;
  }
  if (positionals.length !== 1) usageError(positionals.length ? `one file, not ${positionals.length}` : 'which file? (a .json or .csv catalog)');
  const file = positionals[0]!;
  if (!/\.(json|csv)$/i.test(file)) usageError(`${file}: the file must end in .json or .csv`);
  if (!existsSync(file)) usageError(`${file}: no such file`);
  if (!values.url) usageError('--url is required, e.g. --url http://127.0.0.1:8080');
  try {
    if (!/^https?:$/.test(new URL(values.url).protocol)) throw new Error();
  } catch {
    usageError(`--url ${values.url} is not an http(s) URL`);
  }
  const adminKey = values['admin-key'] || process.env.ADMIN_KEY;
  if (!adminKey) usageError('no admin key: pass --admin-key or set ADMIN_KEY');
  const dryRun = values['dry-run'];
  const disableMissing = values['disable-missing'];

  // 1. Read and check every row before touching the gateway.
  let rows;
  try {
    rows = readCatalogFile(file);
  } catch (e) {
    if (e instanceof CatalogFileError) {
      console.error(`import-catalog: ${file}: ${e.message}`);
      return 1;
    }
    throw e;
  }
  const { valid, errors } = validateRows(rows);

  // 2. The live catalog (failover names may point at models already there).
  const client = new OptimizerClient({ baseURL: values.url, adminKey });
  const api: CatalogApi = client.admin.catalog;
  let live;
  try {
    live = await api.list();
  } catch (e) {
    console.error(`import-catalog: could not read the live catalog from ${values.url}: ${describeError(e)}`);
    return 1;
  }
  errors.push(...checkFailoverReferences(valid, live.map((p) => p.model)));
  if (errors.length) {
    errors.sort((a, b) => a.row - b.row);
    const badRows = new Set(errors.map((e) => e.row)).size;
    console.error(`import-catalog: ${file}: ${badRows} of ${rows.length} rows are invalid; nothing was applied.`);
    for (const e of errors) console.error(`  ${formatRowError(e)}`);
    return 1;
  }

  // 3. The plan.
  const diff = diffCatalog(
    valid.map((v) => v.profile),
    live,
  );
  const steps = planSteps(diff, { disableMissing });
  console.log(`${dryRun ? 'Plan (dry run)' : 'Importing'}: ${valid.length} models from ${file} into ${client.baseURL}`);
  const summary = (created: number, updated: number, disabled: number) =>
    `${created} created, ${updated} updated, ${diff.unchanged.length} unchanged, ${disabled} disabled`;

  if (dryRun) {
    for (const s of steps) console.log(`  ${describeStep(s)}`);
    if (!disableMissing && diff.missing.length) {
      console.log(`  (${diff.missing.length} enabled live models are not in the file and stay as they are; --disable-missing would disable them)`);
    }
    console.log(`Summary (dry run, nothing changed): ${summary(diff.create.length, diff.update.length, disableMissing ? diff.missing.length : 0)}`);
    return 0;
  }

  // 4. Apply, in dependency order.
  const count = { create: 0, update: 0, disable: 0 };
  const result = await applySteps(api, steps, (s) => {
    console.log(`  ${describeStep(s)}`);
    if (s.kind === 'create' || s.kind === 'update' || s.kind === 'disable') count[s.kind]++;
  });
  if (!disableMissing && diff.missing.length) {
    console.log(`  (${diff.missing.length} enabled live models are not in the file and were left as they are; --disable-missing disables them)`);
  }
  console.log(`Summary: ${summary(count.create, count.update, count.disable)}`);
  if (result.failed) {
    console.error(
      `import-catalog: the gateway refused ${result.failed.step.kind} ${result.failed.step.model}: ${result.failed.message}\n` +
        `  ${result.applied} of ${steps.length} steps were applied before it; fix the file and run again (the import is idempotent).`,
    );
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`import-catalog: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(1);
  },
);
