/**
 * @module contracts/console-api
 * The console API under `/api`: what the Vue console and scripts send and receive. Field names are
 * snake_case on the wire, like the relay endpoints.
 */
import { z } from 'zod';
import { roleSchema } from './account-role.ts';
import { metadataSchema } from './attribution.ts';
import {
  attributionLogEntryFields,
  attributionLogFilterFields,
  usageGroupBySchema,
  usageGroupSchema,
} from './console-api-attribution.ts';
import { cacheTokenTotals } from './usage-cache-tokens.ts';
import { usageLogFilterFields } from './usage-log-filters.ts';

export const emailSchema = z
  .email('must be an email address')
  .max(254)
  .transform((email) => email.toLowerCase());
export const passwordSchema = z
  .string()
  .min(8, 'must be at least 8 characters')
  .max(256, 'must be at most 256 characters');

export const registerRequestSchema = z.object({
  email: emailSchema,
  password: passwordSchema,
  name: z.string().trim().min(1).max(64).optional(),
});

export const loginRequestSchema = z.object({ email: emailSchema, password: z.string().min(1).max(256) });

/** The calendar period (UTC) a budget counts over; weeks start on Monday; `total` never resets. */
export const budgetPeriodSchema = z.enum(['total', 'daily', 'weekly', 'monthly']);

/** The budget of a key or of an account (all of its keys together), as sent on create and change. */
const budgetFields = {
  /** USD per period; null removes the budget. Up to nine decimals count (costs are in nano-dollars). */
  budget_usd: z.number().min(0).max(1_000_000).nullable().optional(),
  /** absent on create: `total` */
  budget_period: budgetPeriodSchema.optional(),
};

/** A budget as shown: its period's spend and when the period ends (null: `total`, or no budget). */
const budgetViewFields = {
  budget_usd: z.number().nullable().optional(),
  budget_period: budgetPeriodSchema.optional(),
  /** spent in the current period of `budget_period` (`total` when there is no budget) */
  spent_usd: z.number().optional(),
  budget_resets_at: z.string().nullable().optional(),
};

export const userViewSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: roleSchema,
});

const tokenPolicyFields = {
  expires_at: z.iso.datetime({ offset: true }).nullable().optional(),
  quota: z.number().int().min(0).nullable().optional(),
  models: z.array(z.string().min(1)).max(256).nullable().optional(),
  /** IPs or CIDR ranges, IPv4 or IPv6 (`10.0.0.0/8`, `2001:db8::/32`); null allows any address */
  ip_allowlist: z
    .array(
      z
        .string()
        .trim()
        .regex(/^[0-9a-fA-F:.]+(\/\d{1,3})?$/, 'must be an IP address or a CIDR range such as 10.0.0.0/8'),
    )
    .max(256)
    .nullable()
    .optional(),
  /** requests per minute, across every gateway node; null is unlimited */
  rpm_limit: z.number().int().min(1, 'must be at least 1 (or null for no limit)').nullable().optional(),
  /** tokens (prompt + completion) per minute, across every gateway node; null is unlimited */
  tpm_limit: z.number().int().min(1, 'must be at least 1 (or null for no limit)').nullable().optional(),
  /** default metadata of the key's requests (`{"env": "prod"}`); a request's own names override it; null clears */
  metadata: metadataSchema.nullable().optional(),
  ...budgetFields,
  /** days each request's body and reply are kept (docs/payloads.md); 0 turns capture off */
  payload_capture_days: z.number().int().min(0).max(90, 'must be between 0 (off) and 90 days').optional(),
};

export const createTokenRequestSchema = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
  ...tokenPolicyFields,
});

export const updateTokenRequestSchema = z.object({
  name: z.string().trim().min(1).max(64).optional(),
  enabled: z.boolean().optional(),
  ...tokenPolicyFields,
});

/** `DELETE /api/tokens/:id?delete_payloads=true` also drops the key's captured payloads. */
export const revokeTokenQuerySchema = z.object({ delete_payloads: z.enum(['true', 'false']).optional() });

/**
 * `exhausted`: the token quota is used up; `budget_spent`: the key's budget or its account's (all of its
 * keys together) for the current period is spent (its calls are refused with `budget_exceeded` until
 * the period resets or the budget is raised).
 */
export const tokenStatusSchema = z.enum(['active', 'disabled', 'expired', 'exhausted', 'budget_spent', 'revoked']);

export const tokenViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  key_hint: z.string(),
  status: tokenStatusSchema,
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  quota: z.number().nullable(),
  used_tokens: z.number(),
  models: z.array(z.string()).nullable(),
  ip_allowlist: z.array(z.string()).nullable().optional(),
  rpm_limit: z.number().nullable().optional(),
  tpm_limit: z.number().nullable().optional(),
  metadata: z.record(z.string(), z.string()).nullable().optional(),
  payload_capture_days: z.number().optional(),
  ...budgetViewFields,
});

/** Only the create response carries the plaintext key, this once. */
export const createdTokenSchema = tokenViewSchema.extend({ key: z.string() });

export const granularitySchema = z.enum(['hour', 'day']);

/** Whether the runtime knows `name` as a time zone: Intl accepts the IANA names and `UTC`. */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const usageOverviewQuerySchema = z.object({
  from: z.iso.datetime({ offset: true }),
  to: z.iso.datetime({ offset: true }),
  granularity: granularitySchema.optional(),
  model: z.string().optional(),
  token_id: z.string().optional(),
  /** admins only: another user's overview, or `all` */
  user_id: z.string().optional(),
  /**
   * The viewer's IANA time zone (`Asia/Shanghai`): day buckets are that zone's days, summed from the
   * hourly rollups. Default UTC.
   */
  tz: z
    .string()
    .max(64)
    .refine(isTimeZone, { message: 'must be an IANA time zone such as Asia/Shanghai or UTC' })
    .optional(),
  /** how `by_token` ranks the keys: by tokens used (default) or by spend (then tokens) */
  top_keys_by: z.enum(['tokens', 'cost']).optional(),
  /** `end_user`, `session` or `metadata.<key>`: the overview adds `by_group`, the totals of each */
  group_by: usageGroupBySchema.optional(),
});

export const usageTotalsSchema = z.object({
  calls: z.number(),
  errors: z.number(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  total_tokens: z.number(),
  /**
   * USD spent by the priced requests (summed exactly in nano-dollars, converted once); requests whose
   * model had no price are not in it but counted in `unpriced_requests`
   */
  cost_usd: z.number(),
  /** requests that used tokens of a model with no price (their cost is unknown, not zero) */
  unpriced_requests: z.number(),
  /**
   * requests refused before routing (no channel picked: unknown model, unreadable body, bad key,
   * limits); counted in `calls` and `errors` too. Optional: servers before it did not send it.
   */
  refused_requests: z.number().optional(),
  ...cacheTokenTotals,
});

/** Latency of the calls in the range; null when there were none. */
export const usageLatencySchema = z.object({
  /** mean of every call's latency (from the rollups) */
  average_ms: z.number().nullable(),
  /**
   * 95th percentile (nearest rank) of the range's request latencies, read from the rollups' latency
   * histograms: the embedded store is exact below 32 ms and within 1/16 above, ClickHouse within 1%
   */
  p95_ms: z.number().nullable(),
});

export const usageByTokenSchema = usageTotalsSchema.extend({
  token_id: z.string(),
  /** the key's name and hint, when the key still exists */
  token_name: z.string().nullable().optional(),
  key_hint: z.string().nullable().optional(),
  /** the key has been revoked (its usage still counts) */
  revoked: z.boolean().optional(),
  /** the key owner's email; only in an administrator's answer */
  owner_email: z.string().nullable().optional(),
});

export const usageOverviewSchema = z.object({
  from: z.string(),
  to: z.string(),
  granularity: granularitySchema,
  totals: usageTotalsSchema,
  series: z.array(usageTotalsSchema.extend({ bucket: z.string(), model: z.string() })),
  by_model: z.array(usageTotalsSchema.extend({ model: z.string() })),
  latency: usageLatencySchema.optional(),
  /** the keys with the most tokens (or, when asked, the most spend) in the range, at most ten */
  by_token: z.array(usageByTokenSchema).optional(),
  /** the zone whose days the day buckets are (`UTC` unless the query named one) */
  time_zone: z.string().optional(),
  /**
   * false when the zone's offset in the range is not a whole number of hours (India's +05:30): the
   * hourly rollups cannot split an hour, so each hour counts in the day it starts in
   */
  time_zone_exact: z.boolean().optional(),
  /** with `group_by`: each group's totals over the same hours, at most USAGE_GROUPS_MAX, the most expensive first */
  by_group: z.array(usageGroupSchema).optional(),
});

export const usageLogsQuerySchema = z.object({
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  /** part of the model asked for, any case */
  model: z.string().max(200).optional(),
  token_id: z.string().optional(),
  /** the gateway's request id or the caller's own `X-Request-Id`, whole */
  request_id: z.string().max(200).optional(),
  /** `ok`: answered without error; `error`: a 4xx/5xx answer or an in-stream error */
  status: z.enum(['ok', 'error']).optional(),
  ...attributionLogFilterFields,
  ...usageLogFilterFields,
  limit: z.coerce.number().int().min(1).max(500).optional(),
  /** opaque cursor from the previous page */
  cursor: z.string().optional(),
});

/** One upstream call of a request, the last the answer the client got. */
export const usageLogAttemptSchema = z.object({
  channel_id: z.string(),
  /** the channel's name, when it still exists */
  channel_name: z.string().nullable().optional(),
  status: z.number(),
  /** null for the attempt that answered; else `unreachable`, `timeout`, `rate_limited`, ... */
  error: z.string().nullable(),
  latency_ms: z.number(),
});

export const usageLogEntrySchema = z.object({
  request_id: z.string(),
  /** the caller's own `X-Request-Id`, when it sent one */
  client_request_id: z.string().nullable().optional(),
  started_at: z.string(),
  /** null for a request refused before its key was recognised */
  user_id: z.string().nullable().optional(),
  /** the user's email, in an administrator's view */
  user_email: z.string().nullable().optional(),
  token_id: z.string().nullable(),
  /** the key's name, when the key still exists */
  token_name: z.string().nullable().optional(),
  /** the channel that answered (or last failed); null when refused before routing */
  channel_id: z.string().nullable().optional(),
  channel_name: z.string().nullable().optional(),
  endpoint: z.string(),
  model_requested: z.string().nullable(),
  model_served: z.string().nullable(),
  stream: z.boolean(),
  status: z.number(),
  error_type: z.string().nullable(),
  error_message: z.string().nullable().optional(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  ...cacheTokenTotals,
  reasoning_tokens: z.number().optional(),
  usage_estimated: z.boolean(),
  /** USD, from the price in force when it ran; null when its model had no price; 0 without usage */
  cost_usd: z.number().nullable(),
  latency_ms: z.number(),
  first_token_ms: z.number().nullable(),
  /** every upstream call in order; empty for a request refused before routing (or recorded before attempts were kept) */
  attempts: z.array(usageLogAttemptSchema).optional(),
  ...attributionLogEntryFields,
});

export const usageLogsPageSchema = z.object({
  items: z.array(usageLogEntrySchema),
  next_cursor: z.string().nullable(),
  /** how many requests match the filters; on the first page only (no cursor) */
  total: z.number().optional(),
});

export * from './console-api-attribution.ts';
export * from './console-api-channels.ts';

// Account

export const changePasswordRequestSchema = z.object({
  current_password: z.string().min(1, 'must not be empty').max(256),
  new_password: passwordSchema,
});

// Admin: users

export const adminUserViewSchema = userViewSchema.extend({
  disabled: z.boolean(),
  created_at: z.string(),
  payload_capture_days: z.number().optional(),
  ...budgetViewFields,
});

export const updateUserRequestSchema = z.object({
  role: roleSchema.optional(),
  disabled: z.boolean().optional(),
  ...budgetFields,
  payload_capture_days: tokenPolicyFields.payload_capture_days,
});

/** An administrator opens an account for someone; its first password is made by the gateway. */
export const createUserRequestSchema = z.object({
  email: emailSchema,
  name: z.string().trim().min(1).max(64, 'must be at most 64 characters').optional(),
  role: roleSchema.optional(),
});

/**
 * A password made by the gateway, shown to the administrator once (never stored in plaintext, never
 * shown again): for a new account, or after a reset, which also ends the account's sessions.
 */
export const temporaryPasswordSchema = z.object({
  user: adminUserViewSchema,
  temporary_password: z.string(),
});

export type RegisterRequest = z.infer<typeof registerRequestSchema>;
export type LoginRequest = z.infer<typeof loginRequestSchema>;
export type UserView = z.infer<typeof userViewSchema>;
export type CreateTokenRequest = z.infer<typeof createTokenRequestSchema>;
export type UpdateTokenRequest = z.infer<typeof updateTokenRequestSchema>;
export type TokenView = z.infer<typeof tokenViewSchema>;
export type CreatedToken = z.infer<typeof createdTokenSchema>;
export type TokenStatus = z.infer<typeof tokenStatusSchema>;
export type BudgetPeriod = z.infer<typeof budgetPeriodSchema>;
export type UsageOverviewQuery = z.infer<typeof usageOverviewQuerySchema>;
export type UsageOverview = z.infer<typeof usageOverviewSchema>;
export type UsageTotals = z.infer<typeof usageTotalsSchema>;
export type UsageLogsQuery = z.infer<typeof usageLogsQuerySchema>;
export type UsageLogEntry = z.infer<typeof usageLogEntrySchema>;
export type UsageLogAttempt = z.infer<typeof usageLogAttemptSchema>;
export type UsageLogsPage = z.infer<typeof usageLogsPageSchema>;
export type UsageLatency = z.infer<typeof usageLatencySchema>;
export type UsageByToken = z.infer<typeof usageByTokenSchema>;
export type ChangePasswordRequest = z.infer<typeof changePasswordRequestSchema>;
export type AdminUserView = z.infer<typeof adminUserViewSchema>;
export type UpdateUserRequest = z.infer<typeof updateUserRequestSchema>;
export type CreateUserRequest = z.infer<typeof createUserRequestSchema>;
export type TemporaryPassword = z.infer<typeof temporaryPasswordSchema>;
/** `GET` list answers: `{items: [...]}`. */
export type ListOf<Item> = { items: Item[] };

// The error shape has its own file; every console-api import still finds it here.
export * from './console-api-errors.ts';
