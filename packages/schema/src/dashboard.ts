// Inputs of the dashboard's own reads.
import { z } from 'zod';

/** `GET /v1/dashboard/savings/series`: savings over the last `days`, in about `points` buckets. */
export const savingsSeriesQuery = z
  .object({
    days: z.number().int().min(1).max(366).default(30),
    points: z.number().int().min(2).max(200).default(40),
  })
  .strict();

/** `GET /v1/dashboard/breakdown`: the saving per step and source, and traffic per model, over the last `days`. */
export const breakdownQuery = z
  .object({
    days: z.number().int().min(1).max(366).default(30),
    points: z.number().int().min(2).max(200).default(40),
  })
  .strict();
