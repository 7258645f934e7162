// @vitest-environment happy-dom
/**
 * The usage log row's body and reply: the conversation (system, user, the assistant's thinking, text
 * and tool call, a tool's result), the raw JSON of both sides with a cut side marked, and a request
 * with no payload said plainly.
 */
import type { PayloadView } from '@contracts/console-api-payloads.ts';
import { mount } from '@vue/test-utils';
import { afterEach, expect, it, vi } from 'vitest';
import { i18n, setLocale } from '../locales/index.ts';
import { fakeApi, reply } from '../testing/fake-api.ts';
import { settle } from '../testing/mount.ts';
import PayloadDetails from './PayloadDetails.vue';

afterEach(() => vi.unstubAllGlobals());

const payload: PayloadView = {
  request_id: 'r1',
  token_id: 't1',
  endpoint: 'messages',
  stream: true,
  status: 200,
  captured_at: '2025-03-10T10:00:00.000Z',
  expires_at: '2025-03-17T10:00:00.000Z',
  raw_bytes: 2048,
  stored_bytes: 512,
  request: {
    json: {
      model: 'claude-sonnet-4-5',
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '18°C, sunny' }] },
      ],
    },
    bytes: 400,
    truncated: false,
  },
  reply: {
    json: {
      type: 'message',
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'The tool said sunny.' },
        { type: 'text', text: 'Sunny, 18°C.' },
      ],
    },
    bytes: 300,
    truncated: false,
  },
};

const mountFor = async (requestId: string) => {
  setLocale('en');
  const wrapper = mount(PayloadDetails, { props: { requestId }, global: { plugins: [i18n] } });
  await settle();
  return wrapper;
};

it('shows the conversation with tool calls, tool results and thinking, then the raw JSON', async () => {
  const { calls } = fakeApi({ 'GET /usage/logs/r1/payload': () => payload });
  const wrapper = await mountFor('r1');
  expect(calls.map((call) => call.path)).toEqual(['/usage/logs/r1/payload']);
  const turns = wrapper.findAll('[data-test=turn]');
  expect(turns.map((turn) => turn.find('[data-test=turn-role]').text())).toEqual([
    'system',
    'user',
    'assistant',
    'user',
    'assistant',
  ]);
  expect(turns[2]!.find('[data-kind=tool_call]').text()).toContain('Tool call: weather');
  expect(turns[2]!.find('[data-kind=tool_call]').text()).toContain('"city": "Paris"');
  expect(turns[3]!.find('[data-kind=tool_result]').text()).toContain('18°C, sunny');
  expect(turns[4]!.classes()).toContain('reply');
  expect(turns[4]!.find('[data-kind=thinking]').text()).toContain('The tool said sunny.');
  expect(turns[4]!.find('[data-kind=text]').text()).toBe('Sunny, 18°C.');
  expect(wrapper.find('[data-test=payload-kept]').text()).toContain('512 bytes stored (2,048 before compression)');

  await wrapper.find('[data-test=tab-raw]').trigger('click');
  expect(JSON.parse(wrapper.find('[data-test=raw-request]').text())).toEqual(payload.request.json);
  expect(JSON.parse(wrapper.find('[data-test=raw-reply]').text())).toEqual(payload.reply.json);
  expect(wrapper.find('[data-test=raw-request-truncated]').exists()).toBe(false);
});

it('marks a side cut at the capture limit and shows its text', async () => {
  const cut = {
    ...payload,
    request: { text: '{"messages":[{"role":"user","content":"xxxx', bytes: 90_000, truncated: true },
  };
  fakeApi({ 'GET /usage/logs/r2/payload': () => cut });
  const wrapper = await mountFor('r2');
  await wrapper.find('[data-test=tab-raw]').trigger('click');
  expect(wrapper.find('[data-test=raw-request-truncated]').text()).toContain('90,000 bytes in full');
  expect(wrapper.find('[data-test=raw-request]').text()).toBe(cut.request.text);
});

it('says when nothing was captured', async () => {
  fakeApi({
    'GET /usage/logs/r3/payload': () => reply(404, { error: { code: 'payload_not_found', message: 'No payload' } }),
  });
  const wrapper = await mountFor('r3');
  expect(wrapper.find('[data-test=payload-missing]').text()).toContain('Not captured');
  expect(wrapper.find('[data-test=conversation]').exists()).toBe(false);
});
