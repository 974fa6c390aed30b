// Conversations for the context-pruning tests (pipeline/prune/*.test.ts): messages of each role,
// tool calls, images, long tool outputs, and the fixed seed and run count of their properties.
import type { ContentPart, Message, ToolCall } from '../../src/pipeline/prune/index.ts';

export const SEED = 20_250_611;
export const RUNS = 600;

export function tc(id: string, name = 'read_file', args: unknown = { path: 'src/a.ts' }): ToolCall {
  return { id, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}
export const sys = (content: string): Message => ({ role: 'system', content });
export const user = (content: Message['content']): Message => ({ role: 'user', content });
export const asst = (content: string | null, calls?: ToolCall[]): Message => (calls ? { role: 'assistant', content, tool_calls: calls } : { role: 'assistant', content });
export const tool = (id: string, content: Message['content']): Message => ({ role: 'tool', tool_call_id: id, content });
export const image = (n: number): ContentPart => ({ type: 'image_url', image_url: { url: `data:image/png;base64,iVBORw0KGgo${n}`, detail: 'low' } });
export const lines = (n: number, tag = 'row'): string => Array.from({ length: n }, (_, i) => `${tag} ${i}: ${'lorem ipsum dolor '.repeat(3).trimEnd()}`).join('\n');
