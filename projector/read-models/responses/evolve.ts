/**
 * @module projector/read-models/responses
 * The stored-response document of one Responses id: what `GET /v1/responses/{id}` returns and what a
 * later turn's `previous_response_id` rebuilds its conversation from. Pure and idempotent, and the
 * same in any order: an id is stored once (the first `response.stored` wins, so a second upstream
 * reply that reuses an id, or a replayed event, changes nothing) and a deletion leaves a tombstone
 * that a late or replayed `response.stored` does not bring back. Documents and tombstones lapse
 * `RETENTION_MS` after the response was stored, as OpenAI keeps responses for 30 days.
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

const lapse = (occurredAt: string) => Date.parse(occurredAt) + RETENTION_MS;

export function evolve(document: StoredResponseDocument | null, event: ResponseEvent): StoredResponseDocument {
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
