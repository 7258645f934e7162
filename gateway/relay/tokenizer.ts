/**
 * @module gateway/relay/tokenizer
 * The tokenizer lives with the providers (gateway/providers/tokenizer.ts), whose converters count
 * with it without importing the relay; re-exported here for the relay's modules.
 */
export * from '../providers/tokenizer.ts';
