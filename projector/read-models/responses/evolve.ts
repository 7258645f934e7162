/**
 * @module projector/read-models/responses
 * The stored-response document of one Responses id: what `GET /v1/responses/{id}` returns and what a
 * later turn's `previous_response_id` rebuilds its conversation from. Pure and idempotent, and the
 * same in any order: an id is stored once (the first `response.stored` wins, so a second upstream
 * reply that reuses an id, or a replayed event, changes nothing) and a deletion leaves a tombstone
 * that a late or replayed `response.stored` does not bring back. Documents and tombstones lapse a
 * retention after the response was stored (STORED_RESPONSES_RETENTION_DAYS; by default `RETENTION_MS`,
 * the 30 days OpenAI keeps responses for). The retention is a parameter of the projection, the same
 * for every store that applies it, so a replay arrives at the same lapse times.
 */
import type { EventOfType, GatewayEvent, ResponseStored } from '../../../contracts/events/index.ts';

export const RETENTION_MS = 30 * 24 * 3_600_000;

export type StoredResponseBody = ResponseStored['body'];

export interface StoredResponseDocument extends StoredResponseBody {
  deleted: boolean;
  storedAt: string;
  /** when the document may be forgotten, ms since the epoch */
  expiresAtMs: number;
}

export const collection = 'responses';

type ResponseEvent = EventOfType<'response.stored' | 'response.deleted'>;

export function canHandle(event: GatewayEvent): event is ResponseEvent {
  return event.type === 'response.stored' || event.type === 'response.deleted';
}

export function documentIdOf(event: ResponseEvent): string {
  return event.body.responseId;
}

export function evolve(
  document: StoredResponseDocument | null,
  event: ResponseEvent,
  retentionMs = RETENTION_MS,
): StoredResponseDocument {
  const lapse = (occurredAt: string) => Date.parse(occurredAt) + retentionMs;
  if (event.type === 'response.stored') {
    if (document) return document;
    return { ...event.body, deleted: false, storedAt: event.occurredAt, expiresAtMs: lapse(event.occurredAt) };
  }
  if (document?.deleted) return document;
  if (document && document.userId !== event.body.userId) return document;
  // Only the id, owner and lapse time stay: the conversation itself is gone.
  return {
    responseId: event.body.responseId,
    userId: event.body.userId,
    tokenId: document?.tokenId ?? '',
    requestId: document?.requestId ?? '',
    previousResponseId: null,
    channelId: document?.channelId ?? '',
    channelType: document?.channelType ?? 'openai',
    native: false,
    model: document?.model ?? '',
    status: document?.status ?? 'completed',
    createdAt: document?.createdAt ?? 0,
    usage: null,
    inputItems: [],
    outputItems: [],
    settings: {},
    deleted: true,
    storedAt: document?.storedAt ?? event.occurredAt,
    expiresAtMs: document?.expiresAtMs ?? lapse(event.occurredAt),
  };
}

/** Visible to `userId` at `now`: stored by that account, not deleted, not lapsed. */
export function visibleTo(document: StoredResponseDocument | null, userId: string, now: number): boolean {
  return document !== null && !document.deleted && document.userId === userId && document.expiresAtMs > now;
}

/**
 * The `response.stored` body with the conversation taken out (items and settings), the rest as it
 * was: what a log keeps of a turn once it is deleted or lapsed. Evolved, and then deleted, it makes
 * the same tombstone as the whole body did, so a replay of the compacted log arrives at the same
 * documents.
 */
export function withoutConversation(body: StoredResponseBody): StoredResponseBody {
  return { ...body, inputItems: [], outputItems: [], settings: {} };
}
