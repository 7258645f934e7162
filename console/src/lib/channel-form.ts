/** The channel form's text fields to and from the API's shapes (models list, model mapping, keys, timeouts). */
import type { ChannelView, CreateChannelRequest, UpdateChannelRequest } from '@contracts/console-api.ts';

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
  /** an azure channel's api_version; '' is the gateway default */
  apiVersion: string;
  enabled: boolean;
  /** ms as typed; '' is the gateway default */
  connectTimeout: string | number;
  firstByteTimeout: string | number;
  idleTimeout: string | number;
  /** bedrock: the AWS region; with an access key id and secret, the channel signs (SigV4) instead of using an API key */
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
}

/** Each kind's public base URL, filled in when the kind is chosen; the field stays editable. */
export const defaultBaseUrls: Partial<Record<ChannelView['type'], string>> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  gemini: 'https://generativelanguage.googleapis.com',
};

/** The base URL after the kind changes: empty or another kind's default follows the kind; one's own URL stays. */
export function baseUrlForKind(current: string, type: ChannelView['type']): string {
  const typed = current.trim();
  const isDefault = typed === '' || Object.values(defaultBaseUrls).includes(typed);
  return isDefault ? (defaultBaseUrls[type] ?? current) : current;
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
    apiVersion: '',
    enabled: true,
    connectTimeout: '',
    firstByteTimeout: '',
    idleTimeout: '',
    region: '',
    accessKeyId: '',
    secretAccessKey: '',
    sessionToken: '',
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
    apiVersion: channel.api_version ?? '',
    enabled: channel.enabled,
    connectTimeout: channel.connect_timeout_ms ?? '',
    firstByteTimeout: channel.first_byte_timeout_ms ?? '',
    idleTimeout: channel.idle_timeout_ms ?? '',
    region: channel.region ?? '',
    accessKeyId: '',
    secretAccessKey: '',
    sessionToken: '',
  };
}

/** Keys separated by commas (or spaces); several are sent as `api_keys`. */
export const splitKeys = (text: string) => text.split(/[\s,]+/).filter(Boolean);

const timeout = (value: string | number) => {
  const text = String(value).trim();
  return text ? Math.max(1, Math.trunc(Number(text))) : null;
};

function keyFields(text: string): { api_key: string } | { api_keys: string[] } | Record<string, never> {
  const keys = splitKeys(text);
  if (keys.length === 0) return {};
  return keys.length === 1 ? { api_key: keys[0]! } : { api_keys: keys };
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

/** A bedrock channel's AWS credential, when one was typed (write-only, like the key). */
function awsFields(values: ChannelFormValues) {
  const accessKeyId = values.accessKeyId.trim();
  if (values.type !== 'bedrock' || !accessKeyId) return {};
  return {
    access_key_id: accessKeyId,
    secret_access_key: values.secretAccessKey.trim(),
    ...(values.sessionToken.trim() && { session_token: values.sessionToken.trim() }),
  };
}

function commonFields(values: ChannelFormValues, mapping: Record<string, string>) {
  const bedrock = values.type === 'bedrock';
  return {
    name: values.name.trim(),
    type: values.type,
    // A bedrock channel without a base URL is called at its region's endpoint.
    base_url: bedrock && !values.baseUrl.trim() ? undefined : values.baseUrl.trim(),
    region: bedrock ? values.region.trim() || undefined : undefined,
    models: splitModels(values.models),
    model_mapping: mapping,
    priority: Math.trunc(Number(values.priority) || 0),
    weight: Math.max(0, Math.trunc(Number(values.weight) || 0)),
    thinking_to_content: values.thinkingToContent,
    // Only azure channels have one; a channel that stops being azure loses it on the server.
    ...(values.type === 'azure' && { api_version: values.apiVersion.trim() || null }),
    enabled: values.enabled,
    connect_timeout_ms: timeout(values.connectTimeout),
    first_byte_timeout_ms: timeout(values.firstByteTimeout),
    idle_timeout_ms: timeout(values.idleTimeout),
  };
}

export function createRequestOf(values: ChannelFormValues, mapping: Record<string, string>): CreateChannelRequest {
  const aws = awsFields(values);
  if ('access_key_id' in aws) return { ...commonFields(values, mapping), ...aws } as CreateChannelRequest;
  const keys = keyFields(values.apiKey);
  return {
    ...commonFields(values, mapping),
    ...('api_keys' in keys ? keys : { api_key: values.apiKey.trim() }),
  } as CreateChannelRequest;
}

/**
 * Only the fields that differ from the stored channel are sent, so that saving a new weight does not
 * re-submit (and have the server re-judge) the base URL. Keys are only sent when new ones were typed:
 * an empty field keeps the stored keys.
 */
export function updateRequestOf(
  stored: ChannelView,
  values: ChannelFormValues,
  mapping: Record<string, string>,
): UpdateChannelRequest {
  const before: Record<string, unknown> = commonFields(channelFormOf(stored), stored.model_mapping);
  const changed = Object.entries(commonFields(values, mapping)).filter(
    ([field, value]) => JSON.stringify(value) !== JSON.stringify(before[field]),
  );
  return { ...Object.fromEntries(changed), ...keyFields(values.apiKey), ...awsFields(values) };
}

/**
 * The required fields left empty, by their API names, all at once: the server names only the first
 * it meets, so an empty form was flagged one field per try.
 */
export function missingFields(values: ChannelFormValues, editing: boolean): string[] {
  const bedrock = values.type === 'bedrock';
  const signs = bedrock && values.accessKeyId.trim() !== '';
  const missing: Array<[string, boolean]> = [
    ['name', values.name.trim() === ''],
    ['base_url', !bedrock && values.baseUrl.trim() === ''],
    ['region', bedrock && values.region.trim() === ''],
    ['api_key', !editing && !signs && values.apiKey.trim() === ''],
    ['models', values.models.split(/[,\s]+/).filter(Boolean).length === 0],
  ];
  return missing.filter(([, empty]) => empty).map(([field]) => field);
}
