/**
 * @module contracts/console-api-attribution
 * The console API's shapes for attribution (contracts/attribution.ts): the usage log's filters and
 * columns, the overview's `group_by`, and sessions (`GET /api/sessions`, `GET /api/sessions/{id}`).
 */
import { z } from 'zod';
import { ATTRIBUTION_MAX_ID, boundedMetadata, METADATA_MAX_NAME, METADATA_MAX_VALUE } from './attribution.ts';

const attributionId = z.string().min(1).max(ATTRIBUTION_MAX_ID);

/** `metadata.<key>=<value>` query parameters, gathered into one object by the route. */
export const metadataFilterSchema = boundedMetadata(
  z.string().min(1, 'must not be empty').max(METADATA_MAX_VALUE, `must be at most ${METADATA_MAX_VALUE} characters`),
);

/** The usage log's attribution filters, each an exact match. */
export const attributionLogFilterFields = {
  end_user: attributionId.optional(),
  session_id: attributionId.optional(),
  metadata: metadataFilterSchema.optional(),
};

/** The usage log entry's attribution columns; null when the request carried none. */
export const attributionLogEntryFields = {
  end_user: z.string().nullable().optional(),
  session_id: z.string().nullable().optional(),
  metadata: z.record(z.string(), z.string()).nullable().optional(),
};

/** `end_user`, `session` or `metadata.<key>`. */
export const usageGroupBySchema = z
  .string()
  .regex(
    new RegExp(`^(end_user|session|metadata\\.[A-Za-z0-9_.:-]{1,${METADATA_MAX_NAME}})$`),
    'must be end_user, session or metadata.<key>',
  );

/** How `group_by` reads in the stores. */
export type UsageGrouping = { kind: 'end_user' } | { kind: 'session' } | { kind: 'metadata'; key: string };

export function groupingOf(groupBy: string): UsageGrouping {
  if (groupBy === 'end_user') return { kind: 'end_user' };
  if (groupBy === 'session') return { kind: 'session' };
  return { kind: 'metadata', key: groupBy.slice('metadata.'.length) };
}

/** At most this many groups, the most expensive first (then the most tokens, calls, and by name). */
export const USAGE_GROUPS_MAX = 100;

const totals = {
  calls: z.number(),
  errors: z.number(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  total_tokens: z.number(),
  cost_usd: z.number(),
  unpriced_requests: z.number(),
};

/** One group's totals; `group` null gathers the requests that named no value for it. */
export const usageGroupSchema = z.object({ group: z.string().nullable(), ...totals });

export const sessionsQuerySchema = z.object({
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  /** `recent` (default): the latest activity first; `cost`: the most expensive first */
  sort: z.enum(['recent', 'cost']).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
  offset: z.coerce.number().int().min(0).max(100_000).optional(),
  /** admins only: another user's sessions, or `all` */
  user_id: z.string().optional(),
});

export const sessionSummarySchema = z.object({
  session_id: z.string(),
  first_at: z.string(),
  last_at: z.string(),
  /** the requests of the session; `calls` and `errors` of the totals count them */
  ...totals,
  models: z.array(z.string()),
  end_users: z.array(z.string()),
});

export const sessionsPageSchema = z.object({
  items: z.array(sessionSummarySchema),
  /** the offset of the next page; null on the last */
  next_offset: z.number().nullable(),
});

export const sessionRequestSchema = z.object({
  request_id: z.string(),
  started_at: z.string(),
  endpoint: z.string(),
  model_requested: z.string().nullable(),
  model_served: z.string().nullable(),
  /** administrators only: the channel that answered (or last failed) */
  channel_id: z.string().nullable().optional(),
  channel_name: z.string().nullable().optional(),
  status: z.number(),
  error_type: z.string().nullable(),
  error_message: z.string().nullable(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  cost_usd: z.number().nullable(),
  latency_ms: z.number(),
  end_user: z.string().nullable(),
  metadata: z.record(z.string(), z.string()).nullable(),
});

/** At most this many of a session's requests are listed (its totals count them all). */
export const SESSION_REQUESTS_MAX = 1000;

export const sessionDetailSchema = sessionSummarySchema.extend({
  /** the session's requests in the order they started, at most SESSION_REQUESTS_MAX */
  requests: z.array(sessionRequestSchema),
  /** administrators only: the channels the session's requests went to */
  channels: z.array(z.string()).optional(),
});

export type UsageGroup = z.infer<typeof usageGroupSchema>;
export type SessionsQuery = z.infer<typeof sessionsQuerySchema>;
export type SessionSummary = z.infer<typeof sessionSummarySchema>;
export type SessionsPage = z.infer<typeof sessionsPageSchema>;
export type SessionRequest = z.infer<typeof sessionRequestSchema>;
export type SessionDetail = z.infer<typeof sessionDetailSchema>;
