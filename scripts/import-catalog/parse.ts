// Reads a catalog file (JSON or CSV) into rows, and checks every row locally with the
// same schema and defaults the gateway applies on PUT /v1/admin/catalog/:model.
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { modelProfileSchema, type ModelProfile } from '../../packages/schema/src/index.ts';
import { CsvSyntaxError, parseCsv } from './csv.ts';

/** One entry of the file, before validation. */
export interface SourceRow {
  /** 1-based position among the file's entries (CSV: data rows after the header). */
  row: number;
  /** CSV only: the line of the file the row starts on. */
  line?: number;
  data: Record<string, unknown>;
  /** Fields a CSV cell could not be converted for, with the reason. */
  cellErrors: { field: string; message: string }[];
}

export interface RowError {
  row: number;
  line?: number;
  model?: string;
  field: string;
  message: string;
}

export interface ValidRow {
  row: number;
  line?: number;
  profile: ModelProfile;
}

/** The file as a whole cannot be read (bad JSON, bad CSV header, unknown format). */
export class CatalogFileError extends Error {
  override name = 'CatalogFileError';
}

export const profileFields = Object.keys(modelProfileSchema.shape) as (keyof ModelProfile)[];

/** The defaults the server fills in on PUT before validating. */
export const serverDefaults = { disabled: false, failover: [], strengths: {}, search_only: false, moderation_only: false } as const;

type Kind = 'string' | 'number' | 'boolean' | 'list' | 'strengths';
const kinds: Record<keyof ModelProfile, Kind> = {
  model: 'string',
  provider: 'string',
  input_per_mtok: 'number',
  output_per_mtok: 'number',
  cached_input_per_mtok: 'number',
  cache_write_multiplier: 'number',
  input_modalities: 'list',
  output_modalities: 'list',
  tools: 'string',
  structured_outputs: 'boolean',
  reasoning_efforts: 'list',
  context_length: 'number',
  max_output_tokens: 'number',
  search_only: 'boolean',
  moderation_only: 'boolean',
  strengths: 'strengths',
  disabled: 'boolean',
  failover: 'list',
  weights: 'string',
};

export function formatRowError(e: RowError): string {
  const where = [e.line !== undefined ? `line ${e.line}` : null, e.model ? `model ${JSON.stringify(e.model)}` : null].filter(Boolean).join(', ');
  return `row ${e.row}${where ? ` (${where})` : ''}: field ${e.field}: ${e.message}`;
}

export function readCatalogFile(path: string): SourceRow[] {
  const text = readFileSync(path, 'utf8');
  const ext = extname(path).toLowerCase();
  if (ext === '.json') return parseJsonCatalog(text);
  if (ext === '.csv') return parseCsvCatalog(text);
  throw new CatalogFileError(`${path}: the file must end in .json or .csv`);
}

/** An array of profiles, or `{ "models": [...] }`. */
export function parseJsonCatalog(text: string): SourceRow[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new CatalogFileError(`not valid JSON: ${(e as Error).message}`);
  }
  const list = Array.isArray(doc) ? doc : isObject(doc) && Array.isArray(doc.models) ? doc.models : null;
  if (!list) throw new CatalogFileError('the JSON must be an array of model profiles or an object {"models": [...]}');
  return list.map((item: unknown, i: number) =>
    isObject(item)
      ? { row: i + 1, data: item, cellErrors: [] }
      : { row: i + 1, data: {}, cellErrors: [{ field: '(row)', message: `expected an object, got ${Array.isArray(item) ? 'an array' : typeof item}` }] },
  );
}

/** A header row of profile field names, then one model per row. */
export function parseCsvCatalog(text: string): SourceRow[] {
  let records;
  try {
    records = parseCsv(text);
  } catch (e) {
    if (e instanceof CsvSyntaxError) throw new CatalogFileError(`CSV ${e.message}`);
    throw e;
  }
  const [header, ...rows] = records;
  if (!header) throw new CatalogFileError('the CSV is empty; it needs a header row of field names');
  const columns = header.fields.map((f) => f.trim());
  const seen = new Set<string>();
  for (const c of columns) {
    if (!(profileFields as string[]).includes(c)) throw new CatalogFileError(`CSV header: unknown column ${JSON.stringify(c)}; columns are profile fields: ${profileFields.join(', ')}`);
    if (seen.has(c)) throw new CatalogFileError(`CSV header: column ${JSON.stringify(c)} appears twice`);
    seen.add(c);
  }
  if (!seen.has('model')) throw new CatalogFileError('CSV header: a "model" column is required');

  return rows.map((rec, i) => {
    const out: SourceRow = { row: i + 1, line: rec.line, data: {}, cellErrors: [] };
    if (rec.fields.length !== columns.length) {
      out.cellErrors.push({ field: '(row)', message: `has ${rec.fields.length} fields; the header has ${columns.length}` });
    }
    columns.forEach((col, j) => {
      const cell = rec.fields[j];
      if (cell === undefined) return;
      const r = convertCell(kinds[col as keyof ModelProfile], cell.trim());
      if ('error' in r) out.cellErrors.push({ field: col, message: r.error });
      else if (r.value !== undefined) out.data[col] = r.value;
    });
    return out;
  });
}

const numberPattern = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function convertCell(kind: Kind, cell: string): { value: unknown } | { error: string } {
  switch (kind) {
    case 'string':
      return { value: cell === '' ? undefined : cell };
    case 'number':
      if (cell === '') return { value: undefined };
      return numberPattern.test(cell) ? { value: Number(cell) } : { error: `expected a number, got ${JSON.stringify(cell)}` };
    case 'boolean': {
      if (cell === '') return { value: undefined };
      const b = cell.toLowerCase();
      return b === 'true' ? { value: true } : b === 'false' ? { value: false } : { error: `expected true or false, got ${JSON.stringify(cell)}` };
    }
    case 'list':
      return { value: splitList(cell) };
    case 'strengths': {
      const value: Record<string, number> = {};
      for (const pair of splitList(cell)) {
        const m = /^([^=]+)=(.*)$/.exec(pair);
        if (!m) return { error: `expected capability=score pairs separated by |, got ${JSON.stringify(pair)}` };
        const key = m[1]!.trim();
        const score = m[2]!.trim();
        if (!numberPattern.test(score)) return { error: `${key}: expected a number, got ${JSON.stringify(score)}` };
        if (key in value) return { error: `${key} is given twice` };
        value[key] = Number(score);
      }
      return { value };
    }
  }
}

function splitList(cell: string): string[] {
  return cell
    .split('|')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * Validates every row with the server's defaults and schema, and rejects a model named
 * twice. Returns every problem, not just the first.
 */
export function validateRows(rows: SourceRow[]): { valid: ValidRow[]; errors: RowError[] } {
  const valid: ValidRow[] = [];
  const errors: RowError[] = [];
  const firstRowOf = new Map<string, number>();
  for (const r of rows) {
    const model = typeof r.data.model === 'string' ? r.data.model : undefined;
    const at = { row: r.row, ...(r.line !== undefined ? { line: r.line } : {}), ...(model ? { model } : {}) };
    const rowErrors: RowError[] = r.cellErrors.map((c) => ({ ...at, ...c }));
    const badCells = new Set(r.cellErrors.map((c) => c.field));
    const parsed = modelProfileSchema.safeParse({ ...serverDefaults, ...r.data });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const path = issue.path.map(String).join('.');
        if (badCells.has(String(issue.path[0]))) continue; // already reported with the cell's own reason
        if (issue.code === 'unrecognized_keys') {
          for (const k of issue.keys) rowErrors.push({ ...at, field: path ? `${path}.${k}` : k, message: 'is not a profile field' });
        } else {
          rowErrors.push({ ...at, field: path || '(row)', message: issue.message });
        }
      }
    }
    if (model !== undefined) {
      const first = firstRowOf.get(model);
      if (first !== undefined) rowErrors.push({ ...at, field: 'model', message: `the same model as row ${first}` });
      else firstRowOf.set(model, r.row);
    }
    if (rowErrors.length) errors.push(...rowErrors);
    else if (parsed.success) valid.push({ row: r.row, ...(r.line !== undefined ? { line: r.line } : {}), profile: parsed.data });
  }
  return { valid, errors };
}

/**
 * The gateway refuses a profile whose failover names a model it does not hold. Each name
 * must be the model itself, another model in the file, or a model in the live catalog.
 */
export function checkFailoverReferences(valid: ValidRow[], liveModels: Iterable<string>): RowError[] {
  const known = new Set<string>(liveModels);
  for (const v of valid) known.add(v.profile.model);
  const errors: RowError[] = [];
  for (const v of valid) {
    v.profile.failover.forEach((name, i) => {
      if (!known.has(name)) {
        errors.push({
          row: v.row,
          ...(v.line !== undefined ? { line: v.line } : {}),
          model: v.profile.model,
          field: `failover.${i}`,
          message: `${JSON.stringify(name)} is neither in the file nor in the live catalog`,
        });
      }
    });
  }
  return errors;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
