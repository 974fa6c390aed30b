// Step identity (design §6): the declared step.id; else the call site
// (source.file:line); else the prompt's shape — system prompt, roles and tool
// names, with numbers and quoted literals masked so rewording data is not a new step.
import { createHash } from 'node:crypto';
import type { OptimizerAnnotation } from '@optimizer/schema';

export interface StepIdentity {
  fingerprint: string;
  /** A readable name for the registry: the step id, the call site or "shape:…". */
  label: string;
}

function mask(text: string): string {
  return text
    .replace(/"[^"]*"|'[^']*'/g, '"…"')
    .replace(/\d+(\.\d+)?/g, '#')
    .replace(/\s+/g, ' ')
    .trim();
}

function hash(s: string): string {
  return createHash('sha256').update(s).digest('base64url').slice(0, 22);
}

export function stepIdentity(workflowId: string, annotation: OptimizerAnnotation | undefined, body: Record<string, unknown>): StepIdentity {
  const stepId = annotation?.step?.id;
  if (stepId) return { fingerprint: hash(`${workflowId}\0id\0${stepId}`), label: stepId };
  const file = annotation?.source?.file;
  if (file) {
    const site = `${file}:${annotation?.source?.line ?? 0}`;
    return { fingerprint: hash(`${workflowId}\0site\0${site}`), label: site };
  }
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: string; content?: unknown }[]) : [];
  const system = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
  const roles = messages.map((m) => m.role).join(',');
  const tools = Array.isArray(body.tools) ? (body.tools as { function?: { name?: string } }[]).map((t) => t.function?.name ?? '').join(',') : '';
  const shape = `${mask(system)}\0${roles}\0${tools}`;
  return { fingerprint: hash(`${workflowId}\0shape\0${shape}`), label: `shape:${hash(shape).slice(0, 8)}` };
}
