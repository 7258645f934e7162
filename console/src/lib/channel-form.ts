/** The channel form's text fields to and from the API's shapes (models list, model mapping). */
import type { ChannelView, CreateChannelRequest, UpdateChannelRequest } from '../../../contracts/console-api.ts';

export interface ChannelFormValues {
  name: string;
  type: ChannelView['type'];
  baseUrl: string;
  apiKey: string;
  models: string;
  mapping: string;
  priority: number;
  weight: number;
  thinkingToContent: boolean;
  enabled: boolean;
}

export function blankChannelForm(): ChannelFormValues {
  return {
    name: '',
    type: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    apiKey: '',
    models: '',
    mapping: '',
    priority: 0,
    weight: 1,
    thinkingToContent: false,
    enabled: true,
  };
}

export function channelFormOf(channel: ChannelView): ChannelFormValues {
  return {
    name: channel.name,
    type: channel.type,
    baseUrl: channel.base_url,
    apiKey: '',
    models: channel.models.join(', '),
    mapping: Object.entries(channel.model_mapping)
      .map(([from, to]) => `${from}=${to}`)
      .join('\n'),
    priority: channel.priority,
    weight: channel.weight,
    thinkingToContent: channel.thinking_to_content,
    enabled: channel.enabled,
  };
}

export const splitModels = (text: string) => [...new Set(text.split(/[,\s]+/).filter(Boolean))];

/** `a=b` lines into a record; null when a non-empty line is not of that form. */
export function parseMapping(text: string): Record<string, string> | null {
  const mapping: Record<string, string> = {};
  for (const line of text.split('\n').map((each) => each.trim())) {
    if (!line) continue;
    const [from, to, ...rest] = line.split('=').map((part) => part.trim());
    if (!from || !to || rest.length > 0) return null;
    mapping[from] = to;
  }
  return mapping;
}

function commonFields(values: ChannelFormValues, mapping: Record<string, string>) {
  return {
    name: values.name.trim(),
    type: values.type,
    base_url: values.baseUrl.trim(),
    models: splitModels(values.models),
    model_mapping: mapping,
    priority: Math.trunc(Number(values.priority) || 0),
    weight: Math.max(0, Math.trunc(Number(values.weight) || 0)),
    thinking_to_content: values.thinkingToContent,
    enabled: values.enabled,
  };
}

export function createRequestOf(values: ChannelFormValues, mapping: Record<string, string>): CreateChannelRequest {
  return { ...commonFields(values, mapping), api_key: values.apiKey.trim() };
}

/** The key is only sent when a new one was typed: an empty field keeps the stored key. */
export function updateRequestOf(values: ChannelFormValues, mapping: Record<string, string>): UpdateChannelRequest {
  return { ...commonFields(values, mapping), ...(values.apiKey.trim() && { api_key: values.apiKey.trim() }) };
}
