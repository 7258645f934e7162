/**
 * The rules an Anthropic-format stream must keep for the official clients and Claude Code
 * (docs/wire-formats.md TL;DR, §3.6-B invariants, §4.3, §4.4), checked event by event. Returns every violation
 * found, plus the message the events add up to (as the SDKs accumulate it).
 */
import type { ParsedEvent } from './sse.ts';

const deltaTypeOf: Record<string, string[]> = {
  text: ['text_delta', 'citations_delta'],
  thinking: ['thinking_delta', 'signature_delta'],
  tool_use: ['input_json_delta'],
};

export interface AccumulatedMessage {
  message: Record<string, any> | null;
  content: Array<Record<string, any>>;
  stopReason: string | null;
  usage: Record<string, any> | null;
  error: Record<string, any> | null;
}

export function checkAnthropicStream(events: readonly ParsedEvent[]): {
  violations: string[];
  result: AccumulatedMessage;
} {
  const violations: string[] = [];
  const result: AccumulatedMessage = { message: null, content: [], stopReason: null, usage: null, error: null };
  let open: number | null = null;
  let sawDelta = false;
  let sawStop = false;
  const partialJson = new Map<number, string>();
  for (const [position, { event, data }] of events.entries()) {
    const where = `event ${position}`;
    const payload = JSON.parse(data) as Record<string, any>;
    if (!event) violations.push(`${where}: no event: line`);
    if (payload.type !== event) violations.push(`${where}: event ${event} carries type ${payload.type}`);
    if (sawStop || result.error) violations.push(`${where}: ${payload.type} after the end`);
    if (!result.message && payload.type !== 'message_start' && payload.type !== 'error' && payload.type !== 'ping')
      violations.push(`${where}: ${payload.type} before message_start`);
    switch (payload.type) {
      case 'message_start':
        if (result.message) violations.push(`${where}: second message_start`);
        result.message = payload.message;
        if (typeof payload.message?.usage !== 'object') violations.push(`${where}: message_start without usage`);
        if (payload.message?.content?.length !== 0) violations.push(`${where}: message_start content not []`);
        break;
      case 'content_block_start': {
        const block = payload.content_block ?? {};
        if (open !== null) violations.push(`${where}: block ${payload.index} starts while ${open} is open`);
        if (payload.index !== result.content.length)
          violations.push(`${where}: block index ${payload.index} not contiguous`);
        if (block.type === 'text' && block.text !== '') violations.push(`${where}: text start without text ""`);
        if (block.type === 'thinking' && (block.thinking !== '' || block.signature !== ''))
          violations.push(`${where}: thinking start without thinking "" and signature ""`);
        if (block.type === 'tool_use') {
          if (!/^[a-zA-Z0-9_-]+$/.test(block.id ?? '')) violations.push(`${where}: tool_use id ${block.id} invalid`);
          if (!block.name || JSON.stringify(block.input) !== '{}') violations.push(`${where}: tool_use start shape`);
        }
        result.content.push({ ...block });
        open = payload.index;
        sawDelta = false;
        break;
      }
      case 'content_block_delta': {
        const block = result.content[payload.index];
        if (payload.index !== open || !block) {
          violations.push(`${where}: delta for block ${payload.index}, open is ${open}`);
          break;
        }
        if (!deltaTypeOf[block.type]?.includes(payload.delta?.type))
          violations.push(`${where}: ${payload.delta?.type} in a ${block.type} block`);
        const delta = payload.delta ?? {};
        if (delta.type === 'text_delta') block.text += delta.text;
        if (delta.type === 'thinking_delta') block.thinking += delta.thinking;
        if (delta.type === 'signature_delta') block.signature += delta.signature;
        if (delta.type === 'input_json_delta')
          partialJson.set(payload.index, (partialJson.get(payload.index) ?? '') + delta.partial_json);
        if (delta.text || delta.thinking || delta.partial_json) sawDelta = true;
        break;
      }
      case 'content_block_stop': {
        if (payload.index !== open) violations.push(`${where}: stop for ${payload.index}, open is ${open}`);
        const block = result.content[payload.index];
        if (block?.type === 'text' && !sawDelta) violations.push(`${where}: empty text block`);
        if (block?.type === 'tool_use') block.input = JSON.parse(partialJson.get(payload.index) || '{}');
        open = null;
        break;
      }
      case 'message_delta':
        if (open !== null) violations.push(`${where}: message_delta while block ${open} is open`);
        if (result.stopReason) violations.push(`${where}: second message_delta`);
        if (typeof payload.usage?.output_tokens !== 'number') violations.push(`${where}: no usage.output_tokens`);
        result.stopReason = payload.delta?.stop_reason ?? null;
        result.usage = { ...result.message?.usage, ...payload.usage };
        break;
      case 'message_stop':
        if (!result.stopReason) violations.push(`${where}: message_stop before message_delta`);
        sawStop = true;
        break;
      case 'error':
        result.error = payload.error;
        if (!payload.error?.type || !payload.error?.message) violations.push(`${where}: error lacks type or message`);
        break;
      case 'ping':
        break;
      default:
        violations.push(`${where}: unknown event ${payload.type}`);
    }
  }
  if (result.error) return { violations, result };
  if (!sawStop) violations.push('no message_stop');
  if (result.content.some((block) => block.type === 'tool_use') && result.stopReason !== 'tool_use')
    violations.push(`tool_use block but stop_reason ${result.stopReason}`);
  return { violations, result };
}
