/**
 * @module contracts/channel-type
 * The upstream kinds a channel can be, written once: the channel events, the config file and the
 * console API all read this list, and the provider registry (gateway/providers/index.ts) has one
 * entry per kind.
 */
import { z } from 'zod';

export const channelTypeSchema = z.enum(['openai', 'anthropic', 'azure', 'bedrock', 'gemini']);

export type ChannelType = z.infer<typeof channelTypeSchema>;
