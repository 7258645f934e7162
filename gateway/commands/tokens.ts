/**
 * @module gateway/commands/tokens
 * Issuing, changing and revoking API keys. The plaintext key exists only in the create response;
 * the event carries its keyed hash and a display hint.
 */
import { v7 as uuidv7 } from 'uuid';
import type { CreateTokenRequest, UpdateTokenRequest } from '../../contracts/console-api.ts';
import type { TokenDocument } from '../../projector/read-models/tokens/evolve.ts';
import { newEvent } from '../events/new-event.ts';
import { generateApiKey, hashApiKey, hintOf } from '../security/api-keys.ts';
import { invalidAddressRules, parseAddressRule } from '../security/ip-allowlist.ts';
import { budgetFields } from './budget-fields.ts';
import { type CommandContext, commit } from './command-context.ts';
import { CommandError } from './errors.ts';

const MAX_TOKENS_PER_USER = 1000;

function normalizeTime(value: string | null | undefined): string | null | undefined {
  return value ? new Date(value).toISOString() : value;
}

/** Checks the allowlist precisely (the contract only checks the characters) and writes it canonically. */
function ipAllowlist(entries: string[] | null | undefined): string[] | null | undefined {
  if (!entries) return entries;
  const invalid = invalidAddressRules(entries);
  if (invalid.length > 0) {
    throw new CommandError(
      'invalid',
      'invalid_request',
      `ip_allowlist: "${invalid[0]}" is not an IP address or CIDR range (e.g. 203.0.113.7, 10.0.0.0/8, 2001:db8::/32).`,
      'ip_allowlist',
    );
  }
  return [...new Set(entries.map((entry) => entry.trim()))].filter((entry) => parseAddressRule(entry));
}

/** The limit fields of an event, from the console request: absent stays absent (unchanged on update). */
function limitFields(input: UpdateTokenRequest) {
  const allowlist = ipAllowlist(input.ip_allowlist);
  return {
    ...(allowlist !== undefined && { ipAllowlist: allowlist }),
    ...(input.rpm_limit !== undefined && { rpmLimit: input.rpm_limit }),
    ...(input.tpm_limit !== undefined && { tpmLimit: input.tpm_limit }),
    ...(input.metadata !== undefined && { metadata: input.metadata }),
    ...(input.payload_capture_days !== undefined && { payloadCaptureDays: input.payload_capture_days }),
    ...budgetFields(input),
  };
}

export async function issueToken(
  context: CommandContext,
  userId: string,
  input: CreateTokenRequest,
): Promise<{ token: TokenDocument; key: string }> {
  if (context.stores.lookups.tokensOfUser(userId).filter((token) => !token.revoked).length >= MAX_TOKENS_PER_USER) {
    throw new CommandError(
      'conflict',
      'too_many_tokens',
      `An account may hold at most ${MAX_TOKENS_PER_USER} active keys; revoke some first.`,
    );
  }
  const limits = limitFields(input);
  const key = generateApiKey();
  const tokenId = uuidv7();
  await commit(
    context,
    newEvent(
      'token.issued',
      {
        tokenId,
        userId,
        name: input.name,
        keyHash: hashApiKey(key, context.keys.keyHashing),
        keyHint: hintOf(key),
        expiresAt: normalizeTime(input.expires_at) ?? null,
        quota: input.quota ?? null,
        models: input.models ?? null,
        ...limits,
      },
      context.now(),
    ),
  );
  return { token: context.stores.lookups.tokenById(tokenId)!, key };
}

/** The token, if it exists and belongs to the user; a 404 otherwise (never a 403: ids are not disclosed). */
export function ownedToken(context: CommandContext, userId: string, tokenId: string): TokenDocument {
  const token = context.stores.lookups.tokenById(tokenId);
  if (!token || token.userId !== userId)
    throw new CommandError('not_found', 'token_not_found', 'No such key in your account.');
  return token;
}

export async function updateToken(
  context: CommandContext,
  userId: string,
  tokenId: string,
  input: UpdateTokenRequest,
): Promise<TokenDocument> {
  await context.stores.lookups.ensureToken(tokenId);
  const token = ownedToken(context, userId, tokenId);
  if (token.revoked) throw new CommandError('conflict', 'token_revoked', 'A revoked key cannot be changed.');
  await commit(
    context,
    newEvent(
      'token.updated',
      {
        tokenId,
        userId,
        ...(input.name !== undefined && { name: input.name }),
        ...(input.enabled !== undefined && { enabled: input.enabled }),
        ...(input.expires_at !== undefined && { expiresAt: normalizeTime(input.expires_at) ?? null }),
        ...(input.quota !== undefined && { quota: input.quota }),
        ...(input.models !== undefined && { models: input.models }),
        ...limitFields(input),
      },
      context.now(),
    ),
  );
  return context.stores.lookups.tokenById(tokenId)!;
}

/** Revokes a key; with `deletePayloads`, its captured payloads go too (also asked again of a revoked key). */
export async function revokeToken(
  context: CommandContext,
  userId: string,
  tokenId: string,
  { deletePayloads = false }: { deletePayloads?: boolean } = {},
): Promise<TokenDocument> {
  await context.stores.lookups.ensureToken(tokenId);
  const token = ownedToken(context, userId, tokenId);
  const now = context.now();
  const events = [
    ...(token.revoked ? [] : [newEvent('token.revoked', { tokenId, userId }, now)]),
    ...(deletePayloads ? [newEvent('payloads.deleted', { userId, tokenId, reason: 'key_revoked' as const }, now)] : []),
  ];
  if (events.length > 0) await commit(context, ...events);
  return context.stores.lookups.tokenById(tokenId)!;
}
