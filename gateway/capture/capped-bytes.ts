/**
 * @module gateway/capture/capped-bytes
 * The first `limit` bytes of what passes, and how many passed in all: a captured side is cut at the
 * cap (and marked), so a large body or a long stream costs the capture at most the cap in memory.
 */
export class CappedBytes {
  readonly #limit: number;
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  total = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  add(chunk: string | Uint8Array): void {
    // A written buffer may be reused by its writer once written: copied.
    this.keep(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
  }

  get truncated(): boolean {
    return this.total > this.#limit;
  }

  /** Like `add`, without a copy: for a buffer nothing writes to again (a request body as read). */
  keep(bytes: Buffer): void {
    this.total += bytes.length;
    const room = this.#limit - this.#kept;
    if (room <= 0) return;
    const kept = bytes.length <= room ? bytes : bytes.subarray(0, room);
    this.#chunks.push(kept);
    this.#kept += kept.length;
  }

  text(): string {
    if (this.#chunks.length === 1) return this.#chunks[0]!.toString('utf8');
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}
