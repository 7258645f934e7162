/**
 * @module contracts/gateway-config
 * The YAML (or JSON) file named by `GATEWAY_CONFIG`. Its `channels` seed the channel table at start;
 * `base_url` is written as the provider's own SDK takes it (`https://api.openai.com/v1`,
 * `https://api.anthropic.com`). Its `prices` set what each model costs (gateway/pricing/).
 */
import { z } from 'zod';
import { azureApiVersionSchema } from './azure/channel-settings.ts';
import { awsRegionSchema } from './bedrock/credentials.ts';
import { channelTypeSchema } from './channel-type.ts';

export const channelConfigSchema = z
  .object({
    name: z.string().min(1),
    type: channelTypeSchema,
    /** required, except on a bedrock channel: its region's endpoint (bedrock-runtime.{region}.amazonaws.com) */
    base_url: z.url('must be an absolute http(s) URL').optional(),
    api_key: z.string().min(1, 'must hold the upstream key').optional(),
    /** several upstream keys, used in turn (round-robin); replaces `api_key` */
    api_keys: z.array(z.string().min(1)).min(1, 'must hold at least one key').optional(),
    models: z.array(z.string().min(1)).min(1, 'must list at least one model'),
    /** client model name → upstream model name */
    model_mapping: z.record(z.string(), z.string()).default({}),
    /** higher tiers are tried first */
    priority: z.number().int().default(0),
    /** weighted random inside a tier */
    weight: z.number().int().min(0).default(1),
    thinking_to_content: z.boolean().default(false),
    /** an openai channel whose upstream serves `/v1/responses` itself: Responses requests are relayed as they are */
    responses_api: z.boolean().optional(),
    /** an azure channel's `api-version` (default: contracts/azure/channel-settings.ts) */
    api_version: azureApiVersionSchema.optional(),
    enabled: z.boolean().default(true),
    /** per-channel timeouts in ms; absent means the gateway's defaults (UPSTREAM_*_TIMEOUT_MS) */
    connect_timeout_ms: z.number().int().min(1).optional(),
    first_byte_timeout_ms: z.number().int().min(1).optional(),
    idle_timeout_ms: z.number().int().min(1).optional(),
    /** bedrock: the AWS region requests are signed for, and whose endpoint is the default base URL */
    region: awsRegionSchema.optional(),
    /** bedrock: an AWS credential to sign requests with (SigV4), instead of a Bedrock API key in `api_key` */
    access_key_id: z.string().min(1).optional(),
    secret_access_key: z.string().min(1).optional(),
    /** bedrock: the session token of temporary credentials */
    session_token: z.string().min(1).optional(),
  })
  .superRefine((channel, context) => {
    const issue = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
    const signs = channel.access_key_id !== undefined || channel.secret_access_key !== undefined;
    if (channel.api_key === undefined && channel.api_keys === undefined && !signs) {
      issue('api_key', 'must hold the upstream key (api_key, or api_keys for several)');
    }
    if (channel.api_version !== undefined && channel.type !== 'azure') {
      issue('api_version', 'is a setting of azure channels only');
    }
    if (channel.type !== 'bedrock') {
      if (channel.base_url === undefined) issue('base_url', 'must be an absolute http(s) URL');
      if (signs || channel.session_token !== undefined) {
        issue('access_key_id', 'AWS credentials are for bedrock channels only');
      }
      return;
    }
    if (channel.region === undefined) issue('region', 'a bedrock channel needs its AWS region (e.g. us-east-1)');
    if (signs && (channel.access_key_id === undefined || channel.secret_access_key === undefined)) {
      issue(
        channel.access_key_id === undefined ? 'access_key_id' : 'secret_access_key',
        'give both access_key_id and secret_access_key',
      );
    }
    if (signs && (channel.api_key !== undefined || channel.api_keys !== undefined)) {
      issue('api_key', 'give either an API key or an AWS credential, not both');
    }
  });

const usd = z.number().min(0, 'must not be negative').max(1_000_000, 'must be at most 1,000,000 USD');

/**
 * The operator's price of one model, in USD. An absent cache price is the input price (what a
 * provider without a cache discount charges), an absent one-hour cache-write price the (five-minute)
 * cache-write price; absent input, output or per-request prices are 0.
 */
export const modelPriceConfigSchema = z
  .strictObject({
    input_per_million: usd.optional(),
    output_per_million: usd.optional(),
    cache_read_per_million: usd.optional(),
    cache_write_per_million: usd.optional(),
    /** cache writes kept for an hour (Anthropic's `ttl: "1h"`), dearer than the default five minutes */
    cache_write_1h_per_million: usd.optional(),
    /** for models billed per call, on top of any token prices */
    per_request: usd.optional(),
  })
  .refine((price) => Object.keys(price).length > 0, {
    message: 'must give at least one of input_per_million, output_per_million, per_request',
  });

export const gatewayConfigFileSchema = z.object({
  channels: z.array(channelConfigSchema).default([]),
  /**
   * Prices per model, keyed by the model name clients ask for; they win over the bundled price
   * database, which is matched by the upstream model name and the channel's kind.
   */
  prices: z.record(z.string().min(1), modelPriceConfigSchema).default({}),
});

export type ChannelConfig = z.infer<typeof channelConfigSchema>;
export type GatewayConfigFile = z.infer<typeof gatewayConfigFileSchema>;
export type ModelPriceConfig = z.infer<typeof modelPriceConfigSchema>;
