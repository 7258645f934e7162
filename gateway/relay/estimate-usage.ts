/**
 * @module gateway/relay/estimate-usage
 * The usage estimate lives with the providers (gateway/providers/estimate-usage.ts), whose
 * converters use it without importing the relay; re-exported here for the relay's modules.
 */
export * from '../providers/estimate-usage.ts';
