/**
 * @module gateway/relay/client-abort
 * The signal that ends a relayed request's upstream call when its client goes away. Not an
 * AbortController: creating one per request and having undici listen on its AbortSignal costs CPU on
 * every request (docs/performance.md, "Small choices on the hot path"); an EventEmitter with an
 * `aborted` flag is enough for the reply handlers (buffered-reply.ts, streamed-reply.ts), which end
 * the call through the abort function undici hands them.
 */
import { EventEmitter } from 'node:events';

export class ClientAbort extends EventEmitter {
  aborted = false;

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  }
}
