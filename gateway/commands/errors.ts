/**
 * @module gateway/commands/errors
 * The refusals of console commands, in domain terms: what kind of refusal it is, a stable code for
 * scripts and a message saying what to do. The console API maps the kind to an HTTP status
 * (`console-api/api-error.ts`); commands know nothing of HTTP.
 */

export type CommandErrorKind =
  /** the input cannot be accepted as given */
  | 'invalid'
  /** the actor may not do this */
  | 'forbidden'
  /** what the command names does not exist (or is not the actor's to see) */
  | 'not_found'
  /** the command contradicts the current state (a taken email, the last admin) */
  | 'conflict';

export class CommandError extends Error {
  readonly kind: CommandErrorKind;
  readonly code: string;
  /** the input field at fault, when one is */
  readonly field: string | undefined;

  constructor(kind: CommandErrorKind, code: string, message: string, field?: string) {
    super(message);
    this.name = 'CommandError';
    this.kind = kind;
    this.code = code;
    this.field = field;
  }
}

export function emailTaken(): CommandError {
  return new CommandError(
    'conflict',
    'email_taken',
    'An account with this email already exists. Sign in instead.',
    'email',
  );
}
