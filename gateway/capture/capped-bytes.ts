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
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
    this.total += bytes.length;
    const room = this.#limit - this.#kept;
    if (room <= 0) return;
    const kept = bytes.length <= room ? bytes : bytes.subarray(0, room);
    this.#chunks.push(kept);
    this.#kept += kept.length;
  }

  get truncated(): boolean {
    return this.total > this.#limit;
  }

  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}
