/**
 * @module bench/agent-body
 * A chat completion request shaped like a coding agent's, about 66 KB: a system prompt of ~1,500 words,
 * 20 tools with 5 described arguments each, and 12 tool-call turns with their results. The tiny body
 * the bench sends measures the fixed cost per request; this one measures what grows with the body
 * (reading, JSON parsing, validation, re-serialising), which is what agents actually send.
 *
 * Deterministic (a fixed seed, no clock): every run and every runtime sends the same bytes.
 */
import { wordsFrom } from './agent-bodies.ts';

export function agentBody(model: string): string {
  const words = wordsFrom(20260101);
  const system = Array.from({ length: 107 }, () => `${words(14)}.`).join(' ');
  const tools = Array.from({ length: 20 }, (_, tool) => {
    const names = Array.from({ length: 5 }, (_, argument) => `arg_${argument}_${words(1)}`);
    return {
      type: 'function',
      function: {
        name: `tool_${tool}_${words(1)}`,
        description: words(24),
        parameters: {
          type: 'object',
          properties: Object.fromEntries(
            names.map((name, argument) => [
              name,
              { type: argument === 4 ? 'integer' : 'string', description: words(14) },
            ]),
          ),
          required: names.slice(0, 2),
        },
      },
    };
  });
  const messages: unknown[] = [
    { role: 'system', content: system },
    { role: 'user', content: words(60) },
  ];
  for (let turn = 0; turn < 12; turn++) {
    const id = `call_${String(turn).padStart(4, '0')}bench`;
    const name = tools[(turn * 7) % tools.length]!.function.name;
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id,
          type: 'function',
          function: { name, arguments: JSON.stringify({ path: `src/${words(1)}/${words(1)}.ts`, query: words(12) }) },
        },
      ],
    });
    messages.push({ role: 'tool', tool_call_id: id, content: words(396) });
  }
  return JSON.stringify({ model, messages, tools, max_tokens: 1024 });
}
