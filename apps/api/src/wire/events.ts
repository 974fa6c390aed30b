// An event a call raised (a failover, a step's drift or resettling), delivered with the call's
// records: a leaf type every layer may name.
export interface CallEvent {
  kind: 'failover' | 'drift' | 'resettled';
  at: Date;
  payload: Record<string, unknown>;
}
