/**
 * @module projector/read-models/tokens
 * The key lookup document of one API key. Pure and idempotent: every event sets state, none
 * increments it, so replaying an event leaves the document as it was. Usage so far lives apart
 * (usage projection), because counting is the one thing that must happen exactly once.
 */
import type { BudgetPeriod, EventOfType, GatewayEvent } from '../../../contracts/events/index.ts';

export interface TokenDocument {
  tokenId: string;
  userId: string;
  name: string;
  keyHash: string;
  keyHint: string;
  enabled: boolean;
  revoked: boolean;
  expiresAt: string | null;
  quota: number | null;
  models: string[] | null;
  /** IPs and CIDR ranges the key may be used from; null (or absent in documents projected before it) allows any */
  ipAllowlist?: string[] | null;
  /** requests per minute; null or absent is unlimited */
  rpmLimit?: number | null;
  /** tokens per minute; null or absent is unlimited */
  tpmLimit?: number | null;
  /** what the key may spend per period (nano-dollars); null or absent is unlimited */
  budgetNanoUsd?: number | null;
  /** metadata the key's requests carry by default; null or absent: none */
  metadata?: Record<string, string> | null;
  /** absent: `total` */
  budgetPeriod?: BudgetPeriod;
  /** days each request's body and reply are kept; 0 or absent captures nothing */
  payloadCaptureDays?: number;
  createdAt: string;
  updatedAt: string;
}

export const collection = 'tokens';

type TokenEvent = EventOfType<'token.issued' | 'token.updated' | 'token.revoked'>;

export function canHandle(event: GatewayEvent): event is TokenEvent {
  return event.type === 'token.issued' || event.type === 'token.updated' || event.type === 'token.revoked';
}

export function documentIdOf(event: TokenEvent): string {
  return event.body.tokenId;
}

export function evolve(document: TokenDocument | null, event: TokenEvent): TokenDocument | null {
  switch (event.type) {
    case 'token.issued': {
      const { tokenId, userId, name, keyHash, keyHint, expiresAt, quota, models } = event.body;
      const { ipAllowlist, rpmLimit, tpmLimit, budgetNanoUsd, budgetPeriod, metadata, payloadCaptureDays } = event.body;
      return {
        tokenId,
        userId,
        name,
        keyHash,
        keyHint,
        enabled: true,
        revoked: false,
        expiresAt,
        quota,
        models,
        // Only when the event has them: documents of keys issued without limits stay as they were.
        ...(ipAllowlist != null && { ipAllowlist }),
        ...(rpmLimit != null && { rpmLimit }),
        ...(tpmLimit != null && { tpmLimit }),
        ...(budgetNanoUsd != null && { budgetNanoUsd }),
        ...(budgetPeriod !== undefined && { budgetPeriod }),
        ...(metadata != null && { metadata }),
        ...(payloadCaptureDays ? { payloadCaptureDays } : {}),
        createdAt: event.occurredAt,
        updatedAt: event.occurredAt,
      };
    }
    case 'token.updated': {
      if (!document) return null;
      const { name, enabled, expiresAt, quota, models, ipAllowlist, rpmLimit, tpmLimit } = event.body;
      const { budgetNanoUsd, budgetPeriod, metadata, payloadCaptureDays } = event.body;
      return {
        ...document,
        ...(name !== undefined && { name }),
        ...(enabled !== undefined && { enabled }),
        ...(expiresAt !== undefined && { expiresAt }),
        ...(quota !== undefined && { quota }),
        ...(models !== undefined && { models }),
        ...(ipAllowlist !== undefined && { ipAllowlist }),
        ...(rpmLimit !== undefined && { rpmLimit }),
        ...(tpmLimit !== undefined && { tpmLimit }),
        ...(budgetNanoUsd !== undefined && { budgetNanoUsd }),
        ...(budgetPeriod !== undefined && { budgetPeriod }),
        ...(metadata !== undefined && { metadata }),
        ...(payloadCaptureDays !== undefined && { payloadCaptureDays }),
        updatedAt: event.occurredAt,
      };
    }
    case 'token.revoked':
      return document && { ...document, revoked: true, enabled: false, updatedAt: event.occurredAt };
  }
}
