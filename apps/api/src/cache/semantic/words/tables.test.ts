// The semantic cache guards' word tables are data (cache/semantic/words/*.json): read and
// checked once at load, refused with the file and key when one is not of its shape, and found
// beside the code when the gateway runs its TypeScript directly on Node.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadWordTables, WordTableError, WORDS } from './tables.ts';

const wordsDir = import.meta.dirname;
const copies: string[] = [];

/** A copy of the tables with one file's JSON changed by `edit`. */
function tablesWith(file: string, edit: (json: Record<string, unknown>) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'words-'));
  copies.push(dir);
  cpSync(wordsDir, dir, { recursive: true, filter: (src) => !src.endsWith('.ts') });
  const json = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;
  edit(json);
  writeFileSync(join(dir, file), JSON.stringify(json));
  return dir;
}

afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

describe('the word tables as shipped', () => {
  it('read grouped maps as word → class and keep the order in which the first match names a refusal', () => {
    expect(WORDS.modalClass.would).toBe('will');
    expect(WORDS.modalClass["couldn't"]).toBe('can');
    expect(WORDS.tense.had).toBe('past');
    expect(WORDS.questionWords.whose).toBe('who');
    expect(WORDS.roleCanon.them).toBe('they');
    expect(WORDS.relationSynonyms.within).toBe('in');
    expect(WORDS.antonyms[0]).toEqual([['gain', 'gains', 'gained', 'gaining'], ['lose', 'loses', 'lost', 'losing', 'loss', 'reduce', 'reducing', 'cut', 'cutting', 'shed', 'shedding']]);
    expect([...WORDS.opposing]).toEqual(['against', 'except', 'besides', 'unlike', 'beyond']);
    expect(WORDS.degreeWords).toEqual(['most', 'least', 'better', 'worse']);
  });

  it('load again from their folder to the same tables', () => {
    expect(loadWordTables(wordsDir)).toEqual(WORDS);
  });
});

describe('a word table not of its shape stops the load, naming the file and what is wrong', () => {
  const refusal = (dir: string): string => {
    try {
      loadWordTables(dir);
    } catch (err) {
      expect(err).toBeInstanceOf(WordTableError);
      return (err as Error).message;
    }
    throw new Error('the tables loaded');
  };

  it('refuses an upper-case word, which would never match a lower-cased token', () => {
    const dir = tablesWith('function-words.json', (j) => ((j.articles as string[])[0] = 'The'));
    expect(refusal(dir)).toMatch(/function-words\.json[\s\S]*articles\.0: must be lower-case/);
  });

  it('refuses a word listed twice', () => {
    const dir = tablesWith('relations.json', (j) => (j.opposing as string[]).push('against'));
    expect(refusal(dir)).toMatch(/relations\.json[\s\S]*opposing: lists a word twice/);
  });

  it('refuses an unknown key, so a misspelt table is not silently ignored', () => {
    const dir = tablesWith('negation.json', (j) => ((j.negatons = j.negations), delete j.negations));
    const message = refusal(dir);
    expect(message).toContain('negation.json');
    expect(message).toContain('unknown key negatons');
    expect(message).toMatch(/negations: /);
  });

  it('refuses a word put in two groups of a grouped map', () => {
    const dir = tablesWith('questions.json', (j) => (j.tense as Record<string, string[]>).past!.push('does'));
    expect(refusal(dir)).toMatch(/questions\.json[\s\S]*tense: puts a word in two groups/);
  });

  it('refuses an antonym pair with one side only', () => {
    const dir = tablesWith('antonyms.json', (j) => (j.pairs as unknown[]).push([['up']]));
    expect(refusal(dir)).toMatch(/antonyms\.json[\s\S]*pairs\.75/);
  });

  it('refuses a file that is not JSON, and one that is missing', () => {
    const broken = tablesWith('degree.json', () => undefined);
    writeFileSync(join(broken, 'degree.json'), '{"degreeWords": ["most",');
    expect(refusal(broken)).toMatch(/degree\.json cannot be read as JSON/);
    const missing = tablesWith('degree.json', () => undefined);
    unlinkSync(join(missing, 'pointers.json'));
    expect(refusal(missing)).toMatch(/pointers\.json cannot be read as JSON: .*ENOENT/);
  });
});

describe('run from source', () => {
  it('finds the tables beside the code when Node runs the guards as TypeScript, as `npm start` does', async () => {
    const guards = join(import.meta.dirname, '..', 'guards.ts');
    const script = `const m = await import(${JSON.stringify(guards)}); console.log(JSON.stringify(m.admissible('How do I lose weight fast?', 'How do I gain weight fast?')));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: tmpdir() });
    expect(JSON.parse(stdout)).toEqual({ ok: false, reason: 'antonym:gain/lose' });
  });
});
