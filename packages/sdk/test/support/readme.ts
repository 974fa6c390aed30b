// Reads fenced code blocks out of a Markdown file by the section they sit under, so tests
// run the docs' own examples rather than a copy that can drift from them.
import { readFileSync } from 'node:fs';

/** The bodies of ```lang blocks under the `## heading` section (up to the next `## `), in order. */
export function codeBlocks(file: string, heading: string, lang: string): string[] {
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`${file} has no "## ${heading}" section`);
  const rest = text.slice(start + heading.length + 5);
  const end = rest.search(/\n## /);
  const section = end < 0 ? rest : rest.slice(0, end);
  const blocks: string[] = [];
  const fence = new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g');
  for (const m of section.matchAll(fence)) blocks.push(m[1]!);
  if (blocks.length === 0) throw new Error(`no \`\`\`${lang} block under "## ${heading}" in ${file}`);
  return blocks;
}
