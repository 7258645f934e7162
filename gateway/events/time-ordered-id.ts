/**
 * @module gateway/events/time-ordered-id
 * UUIDv7 ids (RFC 9562) for events and requests, three of them for every relayed request. Laid out
 * and printed here rather than by the `uuid` package (which the rarer ids still use), whose printing
 * of sixteen two-character strings costs more than the id's other work together; the random bytes
 * come from a 16 KB pool, because `randomFillSync` per id shows in the serving thread's profile
 * (figures: docs/performance.md, "Figures behind choices in the code").
 *
 * Ids stay in creation order within a millisecond: the 32-bit counter of RFC 9562 (method 1) starts
 * at a random value each millisecond and counts up, laid out as the `uuid` package lays out its own.
 */
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 16 * 1024;
const pool = new Uint8Array(POOL_BYTES);
let offset = POOL_BYTES;
let lastMilliseconds = Number.NEGATIVE_INFINITY;
let counter = 0;

const HEX_DIGITS = Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));
/** Where each of the 16 bytes prints in the 36 characters (after the dashes at 8, 13, 18, 23). */
const TEXT_OFFSETS = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const bytes = new Uint8Array(16);
/** Reused for every id: the dashes stay, the digits are overwritten, and the string is a copy. */
const text = Buffer.alloc(36, '-');

function nextRandomOffset(): number {
  if (offset + 16 > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const start = offset;
  offset += 16;
  return start;
}

export function timeOrderedId(): string {
  const random = nextRandomOffset();
  const now = Date.now();
  if (now > lastMilliseconds) {
    lastMilliseconds = now;
    // The top bit left clear, so a millisecond has at least 2^31 ids before it runs out.
    counter =
      ((pool[random + 6]! & 0x7f) << 24) | (pool[random + 7]! << 16) | (pool[random + 8]! << 8) | pool[random + 9]!;
  } else {
    counter = (counter + 1) | 0;
    // Out of ids for this millisecond (or the clock went back): borrow the next one.
    if (counter === 0) lastMilliseconds++;
  }
  return uuidV7Text(lastMilliseconds, counter, pool, random);
}

/**
 * The text of the UUIDv7 with this time, counter and random bytes (those at `randomOffset + 10` to
 * `+ 15` of `random`), laid out as the `uuid` package lays out `v7({ msecs, seq, random })`.
 */
export function uuidV7Text(milliseconds: number, counter: number, random: Uint8Array, randomOffset: number): string {
  // 48-bit big-endian time; the two high bytes are above what 32-bit shifts reach.
  bytes[0] = milliseconds / 0x10000000000;
  bytes[1] = milliseconds / 0x100000000;
  bytes[2] = milliseconds >>> 24;
  bytes[3] = milliseconds >>> 16;
  bytes[4] = milliseconds >>> 8;
  bytes[5] = milliseconds;
  // Version 7, then the counter across the version and variant fields.
  bytes[6] = 0x70 | ((counter >>> 28) & 0x0f);
  bytes[7] = counter >>> 20;
  bytes[8] = 0x80 | ((counter >>> 14) & 0x3f);
  bytes[9] = counter >>> 6;
  bytes[10] = ((counter << 2) & 0xff) | (random[randomOffset + 10]! & 0x03);
  for (let index = 11; index < 16; index++) bytes[index] = random[randomOffset + index]!;
  for (let index = 0; index < 16; index++) {
    const byte = bytes[index]!;
    const at = TEXT_OFFSETS[index]!;
    text[at] = HEX_DIGITS[byte >> 4]!;
    text[at + 1] = HEX_DIGITS[byte & 0x0f]!;
  }
  return text.toString('latin1', 0, 36);
}
