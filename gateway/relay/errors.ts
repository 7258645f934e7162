/**
 * @module gateway/relay/errors
 * The gateway's error vocabulary lives in gateway/errors.ts, beside the relay and the providers, so
 * that request readers can refuse a request without importing the relay; re-exported here for the
 * relay's modules.
 */
export * from '../errors.ts';
