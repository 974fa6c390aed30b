// Discovery mode over GraphQL (spec 4.6): live progress, the toggle and the report. The
// report's per-step pricing is JSON in REST's shape.
import { discoveryInput, workflowRef } from '@optimizer/schema';
import { discoveryProgress, discoveryReport, setDiscovery } from '../../domain/discovery.ts';
import { type Builder, capability } from '../builder.ts';

export function registerDiscovery(builder: Builder) {
  type Progress = Awaited<ReturnType<typeof discoveryProgress>>;
  type ReportView = Awaited<ReturnType<typeof discoveryReport>>;

  const DiscoveryState = builder.enumType('DiscoveryState', { values: ['discovering', 'optimized'] as const });

  const Credit = builder.objectRef<Progress['credit']>('DiscoveryCredit').implement({
    fields: (t) => ({ grantedUsd: t.exposeFloat('granted_usd'), usedUsd: t.exposeFloat('used_usd'), remainingUsd: t.exposeFloat('remaining_usd') }),
  });

  const ProgressStep = builder.objectRef<Progress['steps'][number]>('DiscoveryStep').implement({
    fields: (t) => ({
      fingerprint: t.exposeString('fingerprint'),
      label: t.exposeString('label'),
      calls: t.exposeInt('calls'),
      firstSeen: t.exposeString('first_seen'),
      lastSeen: t.exposeString('last_seen'),
      excluded: t.exposeBoolean('excluded'),
      settled: t.exposeBoolean('settled'),
      chosen: t.exposeString('chosen', { nullable: true }),
    }),
  });

  const ProgressRef = builder.objectRef<Progress>('DiscoveryProgress').implement({
    fields: (t) => ({
      agent: t.exposeString('agent'),
      enabled: t.exposeBoolean('enabled'),
      state: t.field({ type: DiscoveryState, resolve: (p) => p.state }),
      credit: t.field({ type: Credit, resolve: (p) => p.credit }),
      steps: t.field({ type: [ProgressStep], resolve: (p) => p.steps }),
    }),
  });

  const ReportStep = builder.objectRef<ReportView['steps'][number]>('DiscoveryReportStep').implement({
    fields: (t) => ({
      fingerprint: t.exposeString('fingerprint'),
      label: t.exposeString('label'),
      settled: t.exposeBoolean('settled'),
      excluded: t.exposeBoolean('excluded'),
      chosen: t.field({ type: 'JSON', nullable: true, resolve: (s) => s.chosen }),
      baseline: t.field({ type: 'JSON', resolve: (s) => s.baseline }),
      observed: t.field({ type: 'JSON', resolve: (s) => s.observed }),
      cost: t.field({ type: 'JSON', resolve: (s) => s.cost }),
      reachable: t.exposeBoolean('reachable'),
      providers: t.field({ type: 'JSON', resolve: (s) => s.providers }),
    }),
  });

  const ReportRef = builder.objectRef<ReportView>('DiscoveryReport').implement({
    fields: (t) => ({
      agent: t.exposeString('agent'),
      state: t.field({ type: DiscoveryState, resolve: (r) => r.state }),
      generatedAt: t.exposeString('generated_at'),
      steps: t.field({ type: [ReportStep], resolve: (r) => r.steps }),
      totals: t.field({ type: 'JSON', resolve: (r) => r.totals }),
    }),
  });

  builder.queryFields((t) => ({
    discovery: t.field({ type: ProgressRef, args: { id: t.arg.string({ required: true }) }, resolve: capability(workflowRef, discoveryProgress) }),
    discoveryReport: t.field({ type: ReportRef, args: { id: t.arg.string({ required: true }) }, resolve: capability(workflowRef, discoveryReport) }),
  }));

  builder.mutationFields((t) => ({
    setDiscovery: t.field({
      type: ProgressRef,
      description: 'Turns discovery on or off for a proxy agent and reads it back.',
      args: { id: t.arg.string({ required: true }), enabled: t.arg.boolean({ required: true }) },
      resolve: capability(discoveryInput, setDiscovery),
    }),
  }));
}
