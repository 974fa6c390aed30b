// Writes docs/sdk/, the SDK's API reference, with TypeDoc (Markdown) from the SDK's sources
// and their doc comments (packages/sdk/typedoc.json), so the reference is what the package exports.
//   node scripts/sdk-docs.ts          rewrites the folder
//   node scripts/sdk-docs.ts --check  exits 1 when the folder is not current
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';

const root = join(import.meta.dirname, '..');
const sdkDir = join(root, 'packages', 'sdk');
export const sdkDocsDir = join(root, 'docs', 'sdk');
const typedoc = join(dirname(createRequire(import.meta.url).resolve('typedoc/package.json')), 'bin', 'typedoc');

/** Runs TypeDoc into `out`; a warning (a broken link, a doc comment TypeDoc cannot read) fails it. */
export async function renderSdkDocs(out: string): Promise<void> {
  await promisify(execFile)(process.execPath, [typedoc, '--options', 'typedoc.json', '--out', out, '--treatWarningsAsErrors', '--logLevel', 'Warn'], { cwd: sdkDir, maxBuffer: 16 << 20 });
}

/** Every file under `dir`, by its path relative to `dir`, with its text. */
export function readTree(dir: string): Map<string, string> {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  return new Map(files.map((e) => join(e.parentPath, e.name)).sort().map((f) => [relative(dir, f), readFileSync(f, 'utf8')]));
}

/** The files of docs/sdk/ that differ from a fresh rendering (missing, extra or changed). */
export async function staleSdkDocs(): Promise<string[]> {
  const tmp = mkdtempSync(join(tmpdir(), 'sdk-docs-'));
  try {
    await renderSdkDocs(tmp);
    const want = readTree(tmp);
    const have = readTree(sdkDocsDir);
    return [...new Set([...want.keys(), ...have.keys()])].filter((f) => want.get(f) !== have.get(f)).sort();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  if (process.argv.includes('--check')) {
    const stale = await staleSdkDocs();
    if (stale.length > 0) {
      console.error(`docs/sdk/ is not current (${stale.join(', ')}): run npm run docs:sdk`);
      process.exit(1);
    }
  } else {
    await renderSdkDocs(sdkDocsDir);
  }
}
