import { Migration } from '@mikro-orm/migrations';

/** Indexes for lookups that otherwise read a whole growing table. */
export class LookupIndexes extends Migration {
  override name = '0007-lookup-indexes';
  up(): void {
    // The routed calls of a run, by tenant and run id: an outcome that reaches a replica which
    // did not serve the run (or one restarted since) finds its calls here, once per such
    // outcome. Partial: only calls the optimizer decided carry a run's step.
    this.addSql(
      `create index call_records_run_idx on call_records(account_id, (detail->'annotation'->'run'->>'id')) where detail->'optimizer' is not null`,
    );
    // Each replica polls for evidence newer than its cursor every two seconds.
    this.addSql(`create index evidence_time_idx on evidence(created_at)`);
    // A step's calls, newest first (the step registry's calls view); walking the workflow's calls by
    // time and filtering on the fingerprint read its whole history for an old or rare step.
    this.addSql(
      `create index call_records_step_idx on call_records(workflow_id, (detail->'optimizer'->>'fingerprint'), created_at desc) where detail->'optimizer' is not null`,
    );
    // Every replica's sweep deletes the expired semantic-cache entries of all tenants every ten minutes.
    this.addSql(`create index semantic_cache_entries_expiry_idx on semantic_cache_entries(expires_at)`);
  }
}
