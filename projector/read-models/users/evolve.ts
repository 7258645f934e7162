/**
 * @module projector/read-models/users
 * The account document: email, password hash, role and whether an administrator disabled it, looked up
 * by email at sign-in.
 */
import type { EventOfType, GatewayEvent, Role } from '../../../contracts/events/index.ts';

export interface UserDocument {
  userId: string;
  email: string;
  name: string;
  passwordHash: string;
  role: Role;
  createdAt: string;
  /** set by `user.updated`; absent means enabled */
  disabled?: boolean;
}

export const collection = 'users';

type UserEvent = EventOfType<'user.registered' | 'user.updated'>;

export function canHandle(event: GatewayEvent): event is UserEvent {
  return event.type === 'user.registered' || event.type === 'user.updated';
}

export function documentIdOf(event: UserEvent): string {
  return event.body.userId;
}

export function evolve(document: UserDocument | null, event: UserEvent): UserDocument | null {
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
