// A small RFC 4180 CSV reader and writer: comma-separated fields, optionally quoted;
// inside quotes a doubled quote is one quote and commas and line breaks are literal.
// CRLF and LF line endings both work; a leading UTF-8 BOM, blank lines and spaces after a
// closing quote are skipped.

export interface CsvRecord {
  fields: string[];
  /** The 1-based line of the file the record starts on. */
  line: number;
}

export class CsvSyntaxError extends Error {
  override name = 'CsvSyntaxError';
  readonly line: number;

  constructor(message: string, line: number) {
    super(`line ${line}: ${message}`);
    this.line = line;
  }
}

export function parseCsv(text: string): CsvRecord[] {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false; // the current field started with a quote
  let inQuotes = false; // inside an open quoted section
  let afterQuote = false; // the quoted section just closed; only , or a line break may follow
  let line = 1;
  let recordLine = 1;

  const endField = () => {
    fields.push(field);
    field = '';
    quoted = false;
    afterQuote = false;
  };
  const endRecord = () => {
    // A blank line (no comma, no quotes, only whitespace) is no record.
    const blank = fields.length === 0 && field.trim() === '' && !quoted;
    endField();
    if (!blank) records.push({ fields, line: recordLine });
    fields = [];
  };

  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (inQuotes) {
      if (c === '"') {
        if (src[i + 1] === '"') {
          field += '"';
          i++;
        } else {
          inQuotes = false;
          afterQuote = true;
        }
      } else {
        if (c === '\n') line++;
        field += c;
      }
      continue;
    }
    if (c === ',') {
      endField();
    } else if (c === '\r' && src[i + 1] === '\n') {
      // handled with the \n
    } else if (c === '\n' || c === '\r') {
      endRecord();
      line++;
      recordLine = line;
    } else if (afterQuote) {
      if (c === ' ' || c === '\t') continue; // padding after a closing quote is ignored
      throw new CsvSyntaxError(`unexpected ${JSON.stringify(c)} after a closing quote (a quote inside a quoted field is written "")`, line);
    } else if (c === '"') {
      if (field !== '') throw new CsvSyntaxError('a quote inside an unquoted field (quote the whole field and double the quote)', line);
      quoted = true;
      inQuotes = true;
    } else {
      field += c;
    }
  }
  if (inQuotes) throw new CsvSyntaxError('a quoted field is never closed', recordLine);
  endRecord();
  return records;
}

function quoteField(value: string): string {
  return /[",\r\n]/.test(value) || /^\s|\s$/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** Writes rows as CSV with LF line endings, quoting only the fields that need it. */
export function toCsv(rows: readonly (readonly string[])[]): string {
  return rows.map((r) => r.map(quoteField).join(',')).join('\n') + '\n';
}
