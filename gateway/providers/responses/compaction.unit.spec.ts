import { describe, expect, it } from 'vitest';
import type { RelayInput } from '../provider.ts';
import { attachCompaction, hasCompactionTrigger, preparedInput, SUMMARY_PREFIX, transcriptOf } from './compaction.ts';
import { continueFrom } from './continuation.ts';

function input(body: Record<string, unknown>, channelId = 'c1'): RelayInput {
  return {
    route: { channel: { channelId, type: 'anthropic' }, upstreamModel: 'm' } as RelayInput['route'],
    body,
    stream: false,
    clientHeaders: {},
  };
}

describe('the gateway’s compaction', () => {
  it('finds a compaction_trigger only among input items', () => {
    expect(hasCompactionTrigger({ input: [{ role: 'user', content: 'x' }, { type: 'compaction_trigger' }] })).toBe(
      true,
    );
    expect(hasCompactionTrigger({ input: 'compaction_trigger' })).toBe(false);
  });

  it('writes the history as a transcript: messages, calls and results as text, opaque items left out', () => {
    const transcript = transcriptOf({
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Fix it' },
            { type: 'input_image', image_url: 'x' },
          ],
        },
        { type: 'function_call', call_id: 'c', name: 'shell', arguments: '{"cmd":"ls"}' },
        { type: 'function_call_output', call_id: 'c', output: 'a.txt' },
        { type: 'reasoning', summary: [], encrypted_content: 'sig' },
        { type: 'additional_tools', role: 'developer', tools: [{ type: 'custom', name: 'exec' }] },
        { type: 'custom_tool_call', id: 'x', call_id: 'd', namespace: 'functions', name: 'exec', input: 'text(1)' },
        { type: 'custom_tool_call_output', call_id: 'd', output: [{ type: 'input_text', text: '1' }] },
        { type: 'local_shell_call', call_id: 'e', action: { command: ['ls'] } },
        { type: 'compaction', encrypted_content: 'gAAAA' },
        { type: 'compaction_trigger' },
      ],
    });
    expect(transcript.split('\n\n')).toEqual([
      'User: Fix it[image]',
      'Assistant called tool shell (call c) with {"cmd":"ls"}',
      'Tool result (call c): a.txt',
      'Assistant called tool functions.exec (call d) with text(1)',
      'Tool result (call d): 1',
      'local_shell_call: {"call_id":"e","action":{"command":["ls"]}}',
    ]);
  });

  it('restores the gateway’s compaction items as their summaries, the same body for every call of an attempt', () => {
    const body = {
      model: 'm',
      input: [
        { type: 'compaction', encrypted_content: 'gwc1.a' },
        { type: 'compaction', encrypted_content: 'gAAAA' },
      ],
    };
    attachCompaction(body, { summaries: new Map([['gwc1.a', 'the summary']]) });
    const first = preparedInput(input(body), false);
    expect(first.body['input']).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: `${SUMMARY_PREFIX}the summary` }] },
      { type: 'compaction', encrypted_content: 'gAAAA' },
    ]);
    expect(preparedInput(input(body), false).body).toBe(first.body);
    expect(body.input[0]).toEqual({ type: 'compaction', encrypted_content: 'gwc1.a' });
  });

  it('continues a stored conversation from its last compaction, without the trigger that asked for it', () => {
    const body = { model: 'm', input: 'Go on' };
    const turn = (inputItems: Record<string, unknown>[], outputItems: Record<string, unknown>[]) => ({
      channelId: 'c1',
      channelType: 'anthropic' as const,
      native: false,
      inputItems,
      outputItems,
    });
    continueFrom(body, [
      turn([{ role: 'user', content: 'old' }], [{ type: 'message', role: 'assistant', content: 'older' }]),
      turn(
        [{ role: 'user', content: 'more' }, { type: 'compaction_trigger' }],
        [{ type: 'compaction', encrypted_content: 'gwc1.s' }],
      ),
    ]);
    attachCompaction(body, { summaries: new Map([['gwc1.s', 'S']]) });
    expect(preparedInput(input(body), false).body['input']).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: `${SUMMARY_PREFIX}S` }] },
      { type: 'message', role: 'user', content: 'Go on' },
    ]);
  });
});
