/**
 * @module contracts/events/entity-events
 * Users, API keys (tokens) and channels. No secret is in plaintext here: keys appear only as an
 * HMAC-SHA256 hash and a display hint, upstream keys only encrypted (AES-256-GCM).
 */
import { z } from 'zod';
import { roleSchema } from '../account-role.ts';
import { metadataSchema } from '../attribution.ts';
import { channelTypeSchema } from '../channel-type.ts';
import { envelope } from './envelope.ts';
import { captureDaysSchema } from './payload-events.ts';

/** The calendar period a money budget counts over, in UTC; `total` never resets. Weeks start on Monday. */
export const budgetPeriodSchema = z.enum(['total', 'daily', 'weekly', 'monthly']);

/**
 * A money budget, added after version 1 of the key and account events was published, as OPTIONAL
 * fields of the same versions: events written before mean "no budget". On `*.updated`, absent means
 * unchanged. Integer nano-dollars, like the cost in `usage.recorded`, so spend and budget compare exactly.
 */
const budgetFields = {
  /** the most the key (or all of the account's keys together) may spend per period; null is unlimited */
  budgetNanoUsd: z.number().int().min(0).nullable().optional(),
  budgetPeriod: budgetPeriodSchema.optional(),
};

export const userRegisteredV1 = envelope(
  'user.registered',
  1,
  z.object({
    userId: z.string(),
    email: z.string(),
    name: z.string(),
    passwordHash: z.string(),
    role: roleSchema,
  }),
);

/** A change to an account: a new password hash, a role, or (admins) disabling it. Absent fields are unchanged. */
export const userUpdatedV1 = envelope(
  'user.updated',
  1,
  z.object({
    userId: z.string(),
    name: z.string().optional(),
    passwordHash: z.string().optional(),
    role: roleSchema.optional(),
    disabled: z.boolean().optional(),
    ...budgetFields,
    /** an admin's capture for every key of the account (payload-events.ts); 0 keeps none, absent is unchanged */
    payloadCaptureDays: captureDaysSchema.optional(),
  }),
);

/**
 * A console session ended before its expiry: its user signed out. `sessionId` is the random id inside
 * the signed cookie (useless without the server's signing key); `expiresAt` is when the session would
 * have ended anyway, after which the read model may forget it.
 */
export const sessionEndedV1 = envelope(
  'session.ended',
  1,
  z.object({ userId: z.string(), sessionId: z.string().min(1), expiresAt: z.iso.datetime() }),
);

const tokenPolicy = {
  expiresAt: z.iso.datetime().nullable(),
  /** total tokens this key may use; null is unlimited */
  quota: z.number().int().min(0).nullable(),
  /** model allowlist; null allows every model */
  models: z.array(z.string()).nullable(),
};

/**
 * Limits added after version 1 was published, as OPTIONAL fields of the same version: every event
 * written before them is still valid and means "no limit" (absent = null), and readers that predate
 * them ignore them. On `token.updated`, absent means unchanged, as for the other fields.
 */
const tokenLimits = {
  /** client IPs or CIDR ranges (IPv4 and IPv6) the key may be used from; null allows any address */
  ipAllowlist: z.array(z.string()).nullable().optional(),
  /** requests per minute across every gateway node; null is unlimited */
  rpmLimit: z.number().int().min(1).nullable().optional(),
  /** tokens (prompt + completion) per minute across every gateway node; null is unlimited */
  tpmLimit: z.number().int().min(1).nullable().optional(),
  /** metadata every request of the key carries unless the request names the same key (contracts/attribution.ts) */
  metadata: metadataSchema.nullable().optional(),
  /** days each request's body and reply are kept (payload-events.ts); 0 or absent keeps none */
  payloadCaptureDays: captureDaysSchema.optional(),
};

export const tokenIssuedV1 = envelope(
  'token.issued',
  1,
  z.object({
    tokenId: z.string(),
    userId: z.string(),
    name: z.string(),
    keyHash: z.string(),
    keyHint: z.string(),
    ...tokenPolicy,
    ...tokenLimits,
    ...budgetFields,
  }),
);

export const tokenUpdatedV1 = envelope(
  'token.updated',
  1,
  z.object({
    tokenId: z.string(),
    userId: z.string(),
    name: z.string().optional(),
    enabled: z.boolean().optional(),
    expiresAt: tokenPolicy.expiresAt.optional(),
    quota: tokenPolicy.quota.optional(),
    models: tokenPolicy.models.optional(),
    ...tokenLimits,
    ...budgetFields,
  }),
);

export const tokenRevokedV1 = envelope('token.revoked', 1, z.object({ tokenId: z.string(), userId: z.string() }));

/** Who manages a channel: the console, or the operator's GATEWAY_CONFIG file (re-applied at every start). */
export const channelSourceSchema = z.enum(['console', 'config']);

export const channelConfiguredV1 = envelope(
  'channel.configured',
  1,
  z.object({
    channelId: z.string(),
    name: z.string(),
    type: channelTypeSchema,
    baseUrl: z.string(),
    /** AES-256-GCM ciphertext of the upstream key, `iv.tag.data` in base64url */
    apiKeyCiphertext: z.string(),
    models: z.array(z.string()),
    modelMapping: z.record(z.string(), z.string()),
    priority: z.number().int(),
    weight: z.number().int().min(0),
    thinkingToContent: z.boolean(),
    enabled: z.boolean(),
    /*
     * Added after version 1 was published, as OPTIONAL fields of the same version: older events stay
     * valid (one key, the node's default timeouts) and older readers ignore them.
     */
    /** every upstream key of the channel, encrypted like `apiKeyCiphertext` (which stays the first), used in turn */
    apiKeyCiphertexts: z.array(z.string()).min(1).optional(),
    /** per-channel timeouts in ms; absent means the gateway's defaults */
    connectTimeoutMs: z.number().int().min(1).optional(),
    firstByteTimeoutMs: z.number().int().min(1).optional(),
    idleTimeoutMs: z.number().int().min(1).optional(),
    /**
     * absent means `console` (events written before it); a channel seeded from the config file is
     * marked `config` at the next start, as its entry then differs from the stored channel
     */
    source: channelSourceSchema.optional(),
    /** an OpenAI-kind channel that serves `/v1/responses` itself; absent means it does not */
    responsesApi: z.boolean().optional(),
    /** an azure channel's `api-version`; absent means the gateway's default */
    apiVersion: z.string().optional(),
    /** a bedrock channel's AWS region, which requests are signed for; absent on other kinds */
    region: z.string().optional(),
  }),
);

export const channelRemovedV1 = envelope('channel.removed', 1, z.object({ channelId: z.string() }));

export type UserRegistered = z.infer<typeof userRegisteredV1>;
export type UserUpdated = z.infer<typeof userUpdatedV1>;
export type SessionEnded = z.infer<typeof sessionEndedV1>;
export type TokenIssued = z.infer<typeof tokenIssuedV1>;
export type TokenUpdated = z.infer<typeof tokenUpdatedV1>;
export type TokenRevoked = z.infer<typeof tokenRevokedV1>;
export type ChannelConfigured = z.infer<typeof channelConfiguredV1>;
export type ChannelRemoved = z.infer<typeof channelRemovedV1>;
export type ChannelSource = z.infer<typeof channelSourceSchema>;
export type BudgetPeriod = z.infer<typeof budgetPeriodSchema>;

export { type Role, roleSchema } from '../account-role.ts';
export { type ChannelType, channelTypeSchema } from '../channel-type.ts';
