import type { ChannelView } from '@contracts/console-api.ts';
import { describe, expect, it } from 'vitest';
import { stackByModel } from '../charts/options.ts';
import { detectLocale } from '../locales/index.ts';
import { channelFormOf, createRequestOf, parseMapping, updateRequestOf } from './channel-form.ts';
import { csvCell, toCsv } from './csv.ts';
import { formatUsd } from './format.ts';
import { bucketsOf, defaultGranularity, resolveRange } from './range.ts';

const HOUR = 3_600_000;

describe('ranges', () => {
  const now = Date.parse('2025-03-10T12:30:00.000Z');

  it('resolves presets to spans ending now, and picks hour or day buckets', () => {
    const range = resolveRange({ preset: '24h', customFrom: '', customTo: '' }, now);
    expect(range.to).toBe('2025-03-10T12:30:00.000Z');
    expect(Date.parse(range.to) - Date.parse(range.from)).toBe(24 * HOUR);
    expect(defaultGranularity(range)).toBe('hour');
    expect(defaultGranularity(resolveRange({ preset: '30d', customFrom: '', customTo: '' }, now))).toBe('day');
  });

  it('takes a custom range as whole local days, in either order', () => {
    const forward = resolveRange({ preset: 'custom', customFrom: '2025-03-01', customTo: '2025-03-03' }, now);
    const backward = resolveRange({ preset: 'custom', customFrom: '2025-03-03', customTo: '2025-03-01' }, now);
    expect(forward).toEqual(backward);
    expect(Date.parse(forward.to) - Date.parse(forward.from)).toBe(3 * 24 * HOUR);
  });

  it('lists every bucket of a range so gaps show as zeros', () => {
    const buckets = bucketsOf({ from: '2025-03-10T10:15:00.000Z', to: '2025-03-10T13:00:00.000Z' }, 'hour');
    expect(buckets).toEqual(['2025-03-10T10:00:00.000Z', '2025-03-10T11:00:00.000Z', '2025-03-10T12:00:00.000Z']);
  });
});

describe('stackByModel', () => {
  it('puts each model on every bucket, the biggest first', () => {
    const row = (bucket: string, model: string, calls: number) => ({
      bucket,
      model,
      calls,
      errors: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: calls * 10,
      cost_usd: 0,
      unpriced_requests: 0,
    });
    const stacked = stackByModel(
      [row('2025-03-10T10:00:00.000Z', 'small', 1), row('2025-03-10T11:00:00.000Z', 'big', 5)],
      ['2025-03-10T10:00:00.000Z', '2025-03-10T11:00:00.000Z', '2025-03-10T12:00:00.000Z'],
      'calls',
    );
    expect(stacked.models).toEqual(['big', 'small']);
    expect(stacked.values).toEqual({ big: [0, 5, 0], small: [1, 0, 0] });
  });
});

describe('formatUsd', () => {
  it('shows cents from a dollar up, and enough digits for a fraction of a cent below', () => {
    expect(formatUsd(12.5, 'en')).toBe('$12.50');
    expect(formatUsd(0, 'en')).toBe('$0.00');
    expect(formatUsd(0.05, 'en')).toBe('$0.05');
    expect(formatUsd(0.000251, 'en')).toBe('$0.000251');
    expect(formatUsd(0.00000123, 'en')).toBe('$0.000001');
  });
});

describe('CSV', () => {
  it('quotes what needs quoting and defuses spreadsheet formulas', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,"b"')).toBe('"a,""b"""');
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell(null)).toBe('');
    expect(csvCell(-3)).toBe('-3');
  });

  it('writes a header and one line per row', () => {
    const csv = toCsv([
      {
        request_id: 'r1',
        started_at: '2025-03-10T10:00:00.000Z',
        token_id: 't1',
        token_name: 'laptop',
        endpoint: 'chat.completions',
        model_requested: 'gpt-4o',
        model_served: 'gpt-4o-2024',
        stream: true,
        status: 200,
        error_type: null,
        prompt_tokens: 3,
        completion_tokens: 4,
        usage_estimated: false,
        cost_usd: 0.000251,
        latency_ms: 120,
        first_token_ms: 40,
        client_request_id: 'trace-1',
        error_message: null,
        cached_tokens: 2,
        reasoning_tokens: 0,
        end_user: 'alice',
        session_id: 's-1',
        metadata: { feature: 'search', env: 'prod' },
        cache_write_tokens: 1,
      },
    ]);
    const [header, line] = csv.trim().split('\r\n');
    expect(header!.split(',')).toContain('first_token_ms');
    expect(header!.split(',').slice(-4)).toEqual(['end_user', 'session_id', 'metadata', 'cache_write_tokens']);
    expect(line).toBe(
      '2025-03-10T10:00:00.000Z,r1,t1,laptop,chat.completions,gpt-4o,gpt-4o-2024,true,200,,3,4,false,0.000251,120,40,trace-1,,2,0,,,alice,s-1,feature=search; env=prod,1',
    );
  });

  it('starts with a byte-order mark, so that Excel reads UTF-8, and names the time column’s zone', () => {
    const csv = toCsv([]);
    expect(csv.startsWith('\uFEFF')).toBe(true);
    const header = csv.slice(1).split('\r\n')[0]!.split(',');
    expect(header).toHaveLength(26);
    expect(header.at(-1)).toBe('cache_write_tokens');
    expect(header[0]).toBe('started_at_utc');
    expect(header.slice(1, 4)).toEqual(['request_id', 'token_id', 'token_name']);
  });

  it('writes the time in UTC whatever offset the row carries', () => {
    const line = toCsv([{ started_at: '2025-03-10T18:00:00.000+08:00' } as never]).split('\r\n')[1]!;
    expect(line.split(',')[0]).toBe('2025-03-10T10:00:00.000Z');
  });
});

describe('channel form', () => {
  it('parses the model mapping lines and refuses malformed ones', () => {
    expect(parseMapping('a=b\n\n c = d ')).toEqual({ a: 'b', c: 'd' });
    expect(parseMapping('a=b=c')).toBeNull();
    expect(parseMapping('nothing')).toBeNull();
  });

  it('sends the upstream key on create, and on update only when a new one was typed', () => {
    const stored: ChannelView = {
      id: 'c1',
      name: 'main',
      type: 'openai',
      base_url: 'https://api.openai.com/v1',
      key_hint: '••••abcd',
      models: ['gpt-4o', 'o3'],
      model_mapping: { x: 'y' },
      priority: 2,
      weight: 3,
      thinking_to_content: false,
      enabled: true,
      source: 'console',
      updated_at: '2025-01-01T00:00:00.000Z',
    };
    const values = channelFormOf(stored);
    expect(values.models).toBe('gpt-4o, o3');
    expect(values.mapping).toBe('x=y');
    expect(updateRequestOf(stored, values, { x: 'y' })).not.toHaveProperty('api_key');
    expect(updateRequestOf(stored, { ...values, apiKey: ' new ' }, {})).toEqual({ api_key: 'new', model_mapping: {} });
    expect(createRequestOf({ ...values, apiKey: 'k' }, {})).toMatchObject({ api_key: 'k', models: ['gpt-4o', 'o3'] });
  });

  it('on update sends only what changed: a new weight alone, never the unchanged base URL', () => {
    const stored: ChannelView = {
      id: 'c1',
      name: 'internal',
      type: 'openai',
      base_url: 'http://10.0.0.5:8000/v1',
      key_hint: '••••abcd',
      models: ['llama'],
      model_mapping: {},
      priority: 0,
      weight: 1,
      thinking_to_content: false,
      enabled: true,
      source: 'console',
      updated_at: '2025-01-01T00:00:00.000Z',
      connect_timeout_ms: 5000,
    };
    expect(updateRequestOf(stored, { ...channelFormOf(stored), weight: 4 }, {})).toEqual({ weight: 4 });
    expect(updateRequestOf(stored, channelFormOf(stored), {})).toEqual({});
    const moved = { ...channelFormOf(stored), connectTimeout: '', baseUrl: 'http://10.0.0.6:8000/v1' };
    expect(updateRequestOf(stored, moved, {})).toEqual({
      base_url: 'http://10.0.0.6:8000/v1',
      connect_timeout_ms: null,
    });
  });
});

describe('locale detection', () => {
  it('follows a stored choice, then the browser languages, then English', () => {
    expect(detectLocale('en', ['zh-CN'])).toBe('en');
    expect(detectLocale(null, ['zh-TW', 'en'])).toBe('zh-CN');
    expect(detectLocale(null, ['fr-FR', 'en-GB'])).toBe('en');
    expect(detectLocale('xx', ['de'])).toBe('en');
  });
});
