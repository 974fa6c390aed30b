// collapse-whitespace: trailing spaces, runs of spaces and runs of blank lines, in
// user, assistant and tool text outside ``` fences.
import type { ContentPart, Message } from './types.ts';
import { isFixed, isTextPart, type Item, type TransformOutput, type Guard } from './work.ts';

const FENCE = /^[ \t]*(`{3,}|~{3,})/;

/**
 * Outside fenced code blocks: strips spaces and tabs at line ends, collapses runs of
 * spaces that follow a non-blank character to one, and collapses runs of blank lines
 * to one (3+ newlines → 2). Indentation is kept — at the start of a line and after a
 * tab, as in `cat -n` style file reads (`   12\t    return x;`) — since it carries
 * structure in code, YAML and pretty-printed JSON. Fence lines and everything between them (an unclosed fence runs
 * to the end) are kept byte for byte. Idempotent: its output is a fixed point.
 */
export function collapseWhitespace(text: string): string {
  if (!/[ \t]\r?\n|[ \t]$| {2}|\n\r?\n/.test(text)) return text;
  const lines = text.split('\n');
  const out: string[] = [];
  let fence: string | null = null;
  let blanks = 0;
  for (const line of lines) {
    const open = FENCE.exec(line);
    if (fence !== null) {
      out.push(line);
      if (open && open[1]![0] === fence[0] && open[1]!.length >= fence.length && line.trim() === open[1]) fence = null;
      continue;
    }
    if (open) {
      fence = open[1]!;
      out.push(line);
      blanks = 0;
      continue;
    }
    const l = line.replace(/[ \t]+(\r?)$/, '$1').replace(/(\S) {2,}/g, '$1 ');
    if (l === '' || l === '\r') {
      blanks++;
      if (blanks > 1) continue;
    } else {
      blanks = 0;
    }
    out.push(l);
  }
  return out.join('\n');
}

function collapseContent(content: Message['content']): Message['content'] {
  if (typeof content === 'string') return collapseWhitespace(content);
  if (!Array.isArray(content)) return content;
  let changed = false;
  const parts = content.map((p): ContentPart => {
    if (!isTextPart(p)) return p;
    const text = collapseWhitespace(p.text);
    if (text === p.text) return p;
    changed = true;
    return { ...p, text };
  });
  return changed ? parts : content;
}

export function collapseWhitespaceStep(items: Item[], guard: Guard): TransformOutput {
  let changed = 0;
  const out = items.map((item): Item => {
    const role = item.m.role;
    if (isFixed(item, guard) || (role !== 'user' && role !== 'assistant' && role !== 'tool')) return item;
    const content = collapseContent(item.m.content);
    if (content === item.m.content) return item;
    changed++;
    return { m: { ...item.m, content }, origin: item.origin };
  });
  return { items: out, changed };
}
