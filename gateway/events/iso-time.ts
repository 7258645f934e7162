/**
 * @module gateway/events/iso-time
 * ISO 8601 text of a millisecond timestamp. Every relayed request prints two (when it started, when
 * its events occurred); at thousands of requests a second, several start and end in each
 * millisecond, so the last one printed is kept and reused.
 */
let lastMilliseconds = Number.NaN;
let lastText = '';

export function isoTime(milliseconds: number): string {
  if (milliseconds !== lastMilliseconds) {
    lastText = new Date(milliseconds).toISOString();
    lastMilliseconds = milliseconds;
  }
  return lastText;
}
