import { Migration } from '@mikro-orm/migrations';

/**
 * Evidence keeps answer texts only as the tenant's capture allows (optimizer/evidence.ts,
 * storedProbe), and the retention sweep (capture/recordings.ts) strips them from probe rows
 * that capture no longer lets keep them. The rows that still hold a text are few (capture
 * `full` within its retention, and rows written by earlier versions until the first sweep):
 * this index finds them without reading the whole evidence table every sweep. No row changes
 * here: the sweep rewrites old rows, keeping what agreement compares.
 */
export class EvidenceTexts extends Migration {
  override name = '0022-evidence-texts';
  up(): void {
    this.addSql(`create index if not exists evidence_texts_idx on evidence(created_at) where kind = 'probe' and (sample->>'baselineText') is not null`);
  }
}
