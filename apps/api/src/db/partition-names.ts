// The monthly partitions' names and shape (db/partitions.ts makes and drops them; migration 0017
// created them): a leaf, so the migrations read it without importing the database back.

/** The tables partitioned by month of `created_at`; each also has a `<table>_default` partition. */
export const PARTITIONED = ['call_records', 'activity'] as const;
/** How many months after the current one have their partitions ready. */
export const MONTHS_AHEAD = 3;
/** How often a replica checks the partitions (creation is a no-op once they exist). */
export const PARTITION_JOB_MS = 6 * 3_600_000;

const MONTH_NAME = /_p(\d{4})(\d{2})$/;

/** The first instant of a UTC month, `offset` months from the one holding `at`. */
export function monthStart(at: Date, offset = 0): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset, 1));
}

export function partitionName(table: string, month: Date): string {
  return `${table}_p${month.getUTCFullYear()}${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The month a partition holds, from its name; undefined for the default partition and any other. */
export function monthOf(name: string): Date | undefined {
  const m = MONTH_NAME.exec(name);
  return m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1)) : undefined;
}
