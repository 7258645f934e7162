/**
 * @module contracts/console-api-channels
 * The console API's channel shapes (admin): create, change, view, health, recent traffic and the
 * channel test. Kept apart from contracts/console-api.ts, which re-exports them, for its size.
 */
import { z } from 'zod';
import { azureApiVersionSchema } from './azure/channel-settings.ts';
import { awsRegionSchema } from './bedrock/credentials.ts';
import { channelTypeSchema } from './channel-type.ts';

// Admin: channels. The upstream key is write-only: sent on create (and on update to replace it),
// never returned; `key_hint` shows only its last characters.

export { channelTypeSchema };

const channelFields = {
  name: z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
  type: channelTypeSchema,
  base_url: z.url('must be an absolute http(s) URL'),
  api_key: z.string().trim().min(1, 'must hold the upstream key').max(4096),
  /** several upstream keys, used in turn; replaces `api_key` when given */
  api_keys: z
    .array(z.string().trim().min(1, 'must hold an upstream key').max(4096))
    .min(1, 'must hold at least one key')
    .max(64),
  /** per-channel timeouts in ms; null falls back to the gateway's defaults */
  connect_timeout_ms: z.number().int().min(1).max(600_000).nullable(),
  first_byte_timeout_ms: z.number().int().min(1).max(3_600_000).nullable(),
  idle_timeout_ms: z.number().int().min(1).max(3_600_000).nullable(),
  models: z.array(z.string().trim().min(1)).min(1, 'must list at least one model').max(256),
  /** client model name → upstream model name */
  model_mapping: z.record(z.string(), z.string()),
  /** higher tiers are tried first */
  priority: z.number().int(),
  /** weighted random inside a tier */
  weight: z.number().int().min(0),
  thinking_to_content: z.boolean(),
  /** an openai channel that serves `/v1/responses` itself */
  responses_api: z.boolean(),
  /** an azure channel's `api-version`; null falls back to the gateway's default */
  api_version: azureApiVersionSchema.nullable(),
  enabled: z.boolean(),
  /** bedrock: the AWS region, whose endpoint is the base URL when none is given */
  region: awsRegionSchema,
  /** bedrock: an AWS credential to sign with (SigV4), write-only like the key, instead of an API key */
  access_key_id: z.string().trim().min(1, 'must hold the access key id').max(128),
  secret_access_key: z.string().trim().min(1, 'must hold the secret access key').max(128),
  /** bedrock: the session token of temporary credentials */
  session_token: z.string().trim().min(1).max(4096),
};

export const createChannelRequestSchema = z
  .object({
    ...channelFields,
    api_key: channelFields.api_key.optional(),
    api_keys: channelFields.api_keys.optional(),
    connect_timeout_ms: channelFields.connect_timeout_ms.optional(),
    first_byte_timeout_ms: channelFields.first_byte_timeout_ms.optional(),
    idle_timeout_ms: channelFields.idle_timeout_ms.optional(),
    model_mapping: channelFields.model_mapping.optional(),
    priority: channelFields.priority.optional(),
    weight: channelFields.weight.optional(),
    thinking_to_content: channelFields.thinking_to_content.optional(),
    responses_api: channelFields.responses_api.optional(),
    api_version: channelFields.api_version.optional(),
    enabled: channelFields.enabled.optional(),
    base_url: channelFields.base_url.optional(),
    region: channelFields.region.optional(),
    access_key_id: channelFields.access_key_id.optional(),
    secret_access_key: channelFields.secret_access_key.optional(),
    session_token: channelFields.session_token.optional(),
  })
  .refine(
    (input) =>
      input.api_key !== undefined ||
      input.api_keys !== undefined ||
      (input.access_key_id !== undefined && input.secret_access_key !== undefined),
    {
      message:
        'must hold the upstream key (api_key, or api_keys for several; a bedrock channel may give an AWS access key instead)',
      path: ['api_key'],
    },
  )
  .refine((input) => input.base_url !== undefined || (input.type === 'bedrock' && input.region !== undefined), {
    message: 'must be an absolute http(s) URL (a bedrock channel may give its region instead)',
    path: ['base_url'],
  })
  .refine((input) => input.type !== 'bedrock' || input.region !== undefined, {
    message: 'a bedrock channel needs its AWS region (e.g. us-east-1)',
    path: ['region'],
  })
  .refine(
    (input) => input.type === 'bedrock' || (input.access_key_id === undefined && input.session_token === undefined),
    {
      message: 'AWS credentials are for bedrock channels only',
      path: ['access_key_id'],
    },
  )
  .refine((input) => (input.access_key_id === undefined) === (input.secret_access_key === undefined), {
    message: 'give both access_key_id and secret_access_key',
    path: ['secret_access_key'],
  })
  .refine((input) => input.api_version == null || input.type === 'azure', {
    message: 'is a setting of azure channels only',
    path: ['api_version'],
  });

export const updateChannelRequestSchema = z
  .object(channelFields)
  .partial()
  .refine((input) => (input.access_key_id === undefined) === (input.secret_access_key === undefined), {
    message: 'give both access_key_id and secret_access_key to replace an AWS credential',
    path: ['secret_access_key'],
  });

export const channelHealthSchema = z.object({
  state: z.enum(['closed', 'open', 'half_open']),
  consecutive_failures: z.number(),
  opened_at: z.string().nullable(),
});

/** A channel's traffic over the last hours, from the usage rollups (the channel that answered each request). */
export const channelUsageSchema = z.object({
  channel_id: z.string(),
  calls: z.number(),
  errors: z.number(),
  /** null without calls */
  average_latency_ms: z.number().nullable(),
});

export const channelUsageQuerySchema = z.object({
  /** how many hours back from now, rounded down to a whole hour */
  hours: z.coerce.number().int().min(1).max(168).default(24),
});

export const channelUsageListSchema = z.object({
  /** the start of the span, a whole hour */
  since: z.string(),
  items: z.array(channelUsageSchema),
});

export const channelViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: channelTypeSchema,
  base_url: z.string(),
  /** the upstream key masked, e.g. `••••wxyz` (a bedrock channel's AWS credential: its access key id's end) */
  key_hint: z.string(),
  /** a bedrock channel's AWS region */
  region: z.string().optional(),
  models: z.array(z.string()),
  model_mapping: z.record(z.string(), z.string()),
  priority: z.number(),
  weight: z.number(),
  thinking_to_content: z.boolean(),
  responses_api: z.boolean().optional(),
  /** an azure channel's `api-version`, absent on other kinds */
  api_version: z.string().optional(),
  enabled: z.boolean(),
  /** `config`: from the GATEWAY_CONFIG file, read-only in the console (change it in the file) */
  source: z.enum(['console', 'config']),
  updated_at: z.string(),
  /** how many upstream keys the channel uses in turn */
  key_count: z.number().optional(),
  connect_timeout_ms: z.number().nullable().optional(),
  first_byte_timeout_ms: z.number().nullable().optional(),
  idle_timeout_ms: z.number().nullable().optional(),
  /** the circuit breaker of this channel on the gateway node that answered (breakers are per node) */
  health: channelHealthSchema.optional(),
});

export const channelTestRequestSchema = z.object({ model: z.string().min(1).optional() });

/** The outcome of a one-token request sent to the channel's upstream. */
export const channelTestResultSchema = z.object({
  ok: z.boolean(),
  /** the upstream's HTTP status; 0 when it could not be reached */
  status: z.number(),
  latency_ms: z.number(),
  model: z.string(),
  error: z.string().nullable(),
});

export type ChannelUsage = z.infer<typeof channelUsageSchema>;
export type ChannelUsageList = z.infer<typeof channelUsageListSchema>;
export type ChannelHealth = z.infer<typeof channelHealthSchema>;
export type { ChannelType } from './channel-type.ts';
export type CreateChannelRequest = z.infer<typeof createChannelRequestSchema>;
export type UpdateChannelRequest = z.infer<typeof updateChannelRequestSchema>;
export type ChannelView = z.infer<typeof channelViewSchema>;
export type ChannelTestRequest = z.infer<typeof channelTestRequestSchema>;
export type ChannelTestResult = z.infer<typeof channelTestResultSchema>;
