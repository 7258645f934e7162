/**
 * @module projector/read-models/users
 * The account document: email, password hash and role, looked up by email at sign-in.
 */
import type { EventOfType, GatewayEvent, Role } from '../../../contracts/events/index.ts';

export interface UserDocument {
  userId: string;
  email: string;
  name: string;
  passwordHash: string;
  role: Role;
  createdAt: string;
}

export const collection = 'users';

type UserEvent = EventOfType<'user.registered'>;

export function canHandle(event: GatewayEvent): event is UserEvent {
  return event.type === 'user.registered';
}

export function documentIdOf(event: UserEvent): string {
  return event.body.userId;
}

export function evolve(document: UserDocument | null, event: UserEvent): UserDocument | null {
  const { userId, email, name, passwordHash, role } = event.body;
  // A second registration of the same id is a replay: keep the first creation time.
  return { userId, email, name, passwordHash, role, createdAt: document?.createdAt ?? event.occurredAt };
}
