// The agent graph (spec 4.3): the workflow's steps as nodes, and edges read from its
// calls' `run` annotations. A call that declares `run.parent` (the id / label of the
// step it was made from) gives a real edge, so a fan-out shows as several edges from
// one parent. A run in which no call declares a parent can only be read as a linear
// chain in `run.seq` order; those edges are flagged `inferred`, since a chain is
// wrong for parallel work. In a run that declares parents, a call without one is a root.
import type { Database } from '../db/database.ts';
import type { Meter } from '../meter/meter.ts';

/** Calls read per graph: the newest ones, enough to show the shape. */
export const GRAPH_CALLS = 10_000;

export interface GraphCall {
  fingerprint: string;
  label: string;
  created_at: Date;
  run: { id?: string; seq?: number; parent?: string } | null;
}

export interface GraphNode {
  fingerprint: string;
  label: string;
  calls: number;
}

export interface GraphEdge {
  /** The parent step's fingerprint; null when the declared parent names no step this agent has seen. */
  from: string | null;
  from_label: string;
  to: string;
  to_label: string;
  /** Calls that followed this edge. */
  calls: number;
  /** True for a chain edge read from call order, false for a declared `run.parent`. */
  inferred: boolean;
}

export interface AgentGraph {
  agent: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** True when every edge is a guess from call order (no call declared a parent). */
  inferred: boolean;
}

/** Builds the graph from the registry's steps and the calls' annotations (pure, for tests). */
export function buildGraph(agent: string, steps: { fingerprint: string; label: string; calls: number }[], calls: GraphCall[]): AgentGraph {
  const nodes = new Map<string, GraphNode>(steps.map((s) => [s.fingerprint, { fingerprint: s.fingerprint, label: s.label, calls: s.calls }]));
  // a step the registry has not recorded (yet) still shows, counted from the calls read
  const registered = new Set(nodes.keys());
  for (const c of calls) {
    if (registered.has(c.fingerprint)) continue;
    const n = nodes.get(c.fingerprint);
    if (n) n.calls += 1;
    else nodes.set(c.fingerprint, { fingerprint: c.fingerprint, label: c.label, calls: 1 });
  }
  // a parent is named by its step id / label; a fingerprint also resolves
  const byName = new Map<string, GraphNode>();
  for (const n of nodes.values()) {
    byName.set(n.fingerprint, n);
    if (n.label) byName.set(n.label, n);
  }
  const edges = new Map<string, GraphEdge>();
  const add = (fromName: string, from: GraphNode | undefined, to: GraphNode, inferred: boolean) => {
    const id = `${from?.fingerprint ?? `?${fromName}`}\0${to.fingerprint}\0${inferred}`;
    const e = edges.get(id);
    if (e) e.calls += 1;
    else edges.set(id, { from: from?.fingerprint ?? null, from_label: from?.label ?? fromName, to: to.fingerprint, to_label: to.label, calls: 1, inferred });
  };
  for (const c of calls) if (!c.run?.id && c.run?.parent) add(c.run.parent, byName.get(c.run.parent), nodes.get(c.fingerprint)!, false);
  const runs = Map.groupBy(
    calls.filter((c) => c.run?.id),
    (c) => c.run!.id!,
  );
  for (const run of runs.values()) {
    if (run.some((c) => c.run?.parent)) {
      for (const c of run) if (c.run?.parent) add(c.run.parent, byName.get(c.run.parent), nodes.get(c.fingerprint)!, false);
      continue;
    }
    const ordered = [...run].sort((a, b) => (a.run?.seq ?? Infinity) - (b.run?.seq ?? Infinity) || a.created_at.getTime() - b.created_at.getTime());
    for (let i = 1; i < ordered.length; i++) {
      const prev = nodes.get(ordered[i - 1]!.fingerprint)!;
      const cur = nodes.get(ordered[i]!.fingerprint)!;
      if (prev !== cur) add(prev.label, prev, cur, true);
    }
  }
  const list = [...edges.values()];
  return { agent, nodes: [...nodes.values()], edges: list, inferred: list.length > 0 && list.every((e) => e.inferred) };
}

/** The newest calls of a workflow that the optimizer attributed to a step, with their run annotation. */
export async function graphCalls(db: Database, meter: Meter, accountId: string, workflowId: string): Promise<GraphCall[]> {
  await meter.flush(); // read your own writes on this replica
  const rows = (await db.em().getConnection().execute(
    `select detail->'optimizer'->>'fingerprint' as fingerprint, coalesce(detail->'optimizer'->>'step', '') as label,
            created_at, detail->'annotation'->'run' as run
       from call_records
      where account_id = ? and workflow_id = ? and detail->'optimizer'->>'fingerprint' is not null
      order by created_at desc limit ?`,
    [accountId, workflowId, GRAPH_CALLS],
  )) as { fingerprint: string; label: string; created_at: Date | string; run: GraphCall['run'] }[];
  return rows.map((r) => ({ ...r, created_at: new Date(r.created_at), run: r.run && typeof r.run === 'object' ? r.run : null }));
}
