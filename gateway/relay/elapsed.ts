/**
 * @module gateway/relay/elapsed
 * Times a request records, in milliseconds to the microsecond. `performance.now()` differences print
 * with up to seventeen digits ("53.04570100000001"): each one in a request's event cost its printing,
 * its bytes through the event log, its parsing in the projector and its printing again into the
 * ClickHouse rows, and a time finer than a microsecond means nothing here.
 */
export function millisecondsSince(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}
