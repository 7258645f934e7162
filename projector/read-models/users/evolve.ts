/**
 * @module projector/read-models/users
 * The account document: email, password hash, role, whether an administrator disabled it, and the
 * sessions its user signed out of, looked up by email at sign-in and by id on every console request.
 */
import type { BudgetPeriod, EventOfType, GatewayEvent, Role } from '../../../contracts/events/index.ts';
import { type EndedSessions, withEndedSession } from './ended-sessions.ts';

export interface UserDocument extends EndedSessions {
  userId: string;
  email: string;
  name: string;
  passwordHash: string;
  role: Role;
  createdAt: string;
  /** set by `user.updated`; absent means enabled */
  disabled?: boolean;
  /** what all of the account's keys together may spend per period (nano-dollars); absent or null is unlimited */
  budgetNanoUsd?: number | null;
  budgetPeriod?: BudgetPeriod;
  /** an admin's payload capture for every key of the account, in days; 0 or absent captures nothing */
  payloadCaptureDays?: number;
}

export const collection = 'users';

type UserEvent = EventOfType<'user.registered' | 'user.updated' | 'session.ended'>;

export function canHandle(event: GatewayEvent): event is UserEvent {
  return event.type === 'user.registered' || event.type === 'user.updated' || event.type === 'session.ended';
}

export function documentIdOf(event: UserEvent): string {
  return event.body.userId;
}

export function evolve(document: UserDocument | null, event: UserEvent): UserDocument | null {
  if (event.type === 'session.ended') {
    // Signing out of an unknown account changes nothing; a replay lists the same session once.
    return document && { ...document, ...withEndedSession(document, event) };
  }
  if (event.type === 'user.updated') {
    // An update of an unknown account changes nothing; absent fields keep their value, so a replay is harmless.
    if (!document) return null;
    const { userId: _userId, ...changes } = event.body;
    return { ...document, ...changes };
  }
  const { userId, email, name, passwordHash, role } = event.body;
  // A second registration of the same id is a replay: keep the first creation time.
  return { userId, email, name, passwordHash, role, createdAt: document?.createdAt ?? event.occurredAt };
}
