/**
 * @module gateway/commands/sessions
 * Signing out: the session is ended for every gateway node, not only forgotten by this browser, so a
 * copied cookie stops working at once rather than at its expiry.
 */
import { newEvent } from '../events/new-event.ts';
import { type CommandContext, commit } from './command-context.ts';

export async function endSession(
  context: CommandContext,
  session: { userId: string; sessionId: string; expiresAt: number },
): Promise<void> {
  const expiresAt = new Date(session.expiresAt).toISOString();
  await commit(
    context,
    newEvent('session.ended', { userId: session.userId, sessionId: session.sessionId, expiresAt }, context.now()),
  );
}
