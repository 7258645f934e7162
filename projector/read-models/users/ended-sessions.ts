/**
 * @module projector/read-models/users/ended-sessions
 * The sessions of an account that were ended before their expiry (`session.ended`), kept on the account
 * document that every console request reads anyway: signed out by id, with when each would have expired.
 * Entries are forgotten once that time has passed (judged by the event's own time, so a replay gives the
 * same document). A user signing out very often could grow the list without bound: past
 * `MOST_ENDED_SESSIONS`, the soonest-expiring entries fold into `sessionsEndedThrough`, which ends every
 * session expiring at or before it. That may end a few sessions early; it never lets an ended one back in.
 */
import type { SessionEnded } from '../../../contracts/events/index.ts';

export const MOST_ENDED_SESSIONS = 100;

export interface EndedSessions {
  /** session id → its expiry (ms since the epoch) */
  endedSessions?: Record<string, number>;
  /** every session expiring at or before this time (ms since the epoch) is ended */
  sessionsEndedThrough?: number;
}

export function withEndedSession(document: EndedSessions, event: SessionEnded): EndedSessions {
  const now = Date.parse(event.occurredAt);
  const { sessionId } = event.body;
  const entries = Object.entries(document.endedSessions ?? {}).filter(
    ([id, expiresAt]) => id !== sessionId && expiresAt > now,
  );
  entries.push([sessionId, Date.parse(event.body.expiresAt)]);
  // Soonest expiry first, ties by id: the same events give the same document in any store.
  entries.sort(([leftId, left], [rightId, right]) => left - right || leftId.localeCompare(rightId));
  let through = document.sessionsEndedThrough;
  while (entries.length > MOST_ENDED_SESSIONS) {
    const [, expiresAt] = entries.shift()!;
    through = Math.max(through ?? 0, expiresAt);
  }
  return {
    endedSessions: Object.fromEntries(entries),
    ...(through !== undefined && { sessionsEndedThrough: through }),
  };
}

/** Whether the session with this id and expiry was ended. */
export function sessionEnded(document: EndedSessions, sessionId: string, expiresAt: number): boolean {
  if (document.sessionsEndedThrough !== undefined && expiresAt <= document.sessionsEndedThrough) return true;
  return document.endedSessions?.[sessionId] !== undefined;
}
