/**
 * @module gateway/events/iso-time
 * ISO 8601 text of millisecond timestamps. Every relayed request prints two (when it started, when
 * its events occurred); at thousands of requests a second, several start (and several end) in each
 * millisecond, so a printer keeps the last text it printed and reuses it. Each sequence of times
 * gets its own printer: start and end times interleave, and one shared entry would never match.
 */
export function isoTimePrinter(): (milliseconds: number) => string {
  let lastMilliseconds = Number.NaN;
  let lastText = '';
  return (milliseconds) => {
    if (milliseconds !== lastMilliseconds) {
      lastText = new Date(milliseconds).toISOString();
      lastMilliseconds = milliseconds;
    }
    return lastText;
  };
}
