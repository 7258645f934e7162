/**
 * @module stores/memory-command-guards
 * The embedded mode's command guards: one process serves every console command, so a claim is a map
 * entry checked and set in one synchronous step, and a scope is a queue of the work waiting for it.
 */
import type { CommandGuards } from './ports.ts';

export class MemoryCommandGuards implements CommandGuards {
  /** email → the account that claimed it; kept, so a claim never lapses before the lookups show it */
  readonly #emails = new Map<string, string>();
  /** scope → the end of the last work queued in it */
  readonly #scopes = new Map<string, Promise<unknown>>();

  async claimEmail(email: string, userId: string): Promise<boolean> {
    const holder = this.#emails.get(email);
    if (holder !== undefined) return holder === userId;
    this.#emails.set(email, userId);
    return true;
  }

  async releaseEmail(email: string, userId: string): Promise<void> {
    if (this.#emails.get(email) === userId) this.#emails.delete(email);
  }

  exclusively<T>(scope: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#scopes.get(scope) ?? Promise.resolve();
    const result = previous.then(work);
    const settled = result.catch(() => {});
    this.#scopes.set(scope, settled);
    // Forget the scope once the queue is empty, so it does not hold the last result.
    void settled.then(() => {
      if (this.#scopes.get(scope) === settled) this.#scopes.delete(scope);
    });
    return result;
  }
}
