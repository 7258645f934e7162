/**
 * @module gateway/console-api/token-routes
 * The signed-in user's API keys: list (with their limits, budget and spend), create (the plaintext key
 * in this one response), change any setting, revoke; and the models the channels serve, to pick a
 * key's allowlist from.
 */
import { Router } from 'express';
import {
  createTokenRequestSchema,
  revokeTokenQuerySchema,
  type TokenStatus,
  type TokenView,
  updateTokenRequestSchema,
} from '../../contracts/console-api.ts';
import { tokenSpendOwner } from '../../projector/read-models/spend/spend.ts';
import type { TokenDocument } from '../../projector/read-models/tokens/evolve.ts';
import type { LookupReadModel } from '../../stores/ports.ts';
import type { CommandContext } from '../commands/command-context.ts';
import { issueToken, revokeToken, updateToken } from '../commands/tokens.ts';
import { spentBudget } from '../relay/budget.ts';
import { parseOrThrow } from './api-error.ts';
import { budgetView } from './budget-view.ts';
import { currentUser } from './guards.ts';

export function tokenStatus(
  token: TokenDocument,
  usedTokens: number,
  lookups: LookupReadModel,
  now: number,
): TokenStatus {
  if (token.revoked) return 'revoked';
  if (!token.enabled) return 'disabled';
  if (token.expiresAt && Date.parse(token.expiresAt) <= now) return 'expired';
  if (token.quota !== null && usedTokens >= token.quota) return 'exhausted';
  // The relay's own test: the key's budget or its account's, spent at or past its limit, refuses every call.
  if (spentBudget(token, lookups, now) !== null) return 'budget_spent';
  return 'active';
}

export function tokenView(token: TokenDocument, lookups: LookupReadModel, now = Date.now()): TokenView {
  const usage = lookups.tokenUsage(token.tokenId);
  const spend = lookups.spend(tokenSpendOwner(token.tokenId));
  return {
    id: token.tokenId,
    name: token.name,
    key_hint: token.keyHint,
    status: tokenStatus(token, usage.usedTokens, lookups, now),
    created_at: token.createdAt,
    last_used_at: usage.lastUsedAt,
    expires_at: token.expiresAt,
    quota: token.quota,
    used_tokens: usage.usedTokens,
    models: token.models,
    ip_allowlist: token.ipAllowlist ?? null,
    rpm_limit: token.rpmLimit ?? null,
    tpm_limit: token.tpmLimit ?? null,
    metadata: token.metadata ?? null,
    payload_capture_days: token.payloadCaptureDays ?? 0,
    ...budgetView(token.budgetNanoUsd, token.budgetPeriod, spend, now),
  };
}

export function tokenRoutes(context: CommandContext): Router {
  const router = Router();
  const { lookups } = context.stores;

  router.get('/tokens', (request, response) => {
    const user = currentUser(request);
    const tokens = lookups
      .tokensOfUser(user.userId)
      .sort((left, right) => right.createdAt.localeCompare(left.createdAt));
    response.json({ items: tokens.map((token) => tokenView(token, lookups)) });
  });

  // The models a key may be limited to: those the enabled channels serve (the edit dialog's choices).
  router.get('/models', (request, response) => {
    currentUser(request);
    const models = new Set(lookups.channels().flatMap((channel) => (channel.enabled ? channel.models : [])));
    response.json({ items: [...models].sort() });
  });

  router.post('/tokens', async (request, response) => {
    const user = currentUser(request);
    const input = parseOrThrow(createTokenRequestSchema, request.body);
    const { token, key } = await issueToken(context, user.userId, input);
    response.status(201).json({ ...tokenView(token, lookups), key });
  });

  router.patch('/tokens/:id', async (request, response) => {
    const user = currentUser(request);
    const input = parseOrThrow(updateTokenRequestSchema, request.body);
    const token = await updateToken(context, user.userId, request.params.id!, input);
    response.json(tokenView(token, lookups));
  });

  router.delete('/tokens/:id', async (request, response) => {
    const user = currentUser(request);
    const deletePayloads = parseOrThrow(revokeTokenQuerySchema, request.query).delete_payloads === 'true';
    const token = await revokeToken(context, user.userId, request.params.id!, { deletePayloads });
    response.json(tokenView(token, lookups));
  });

  return router;
}
