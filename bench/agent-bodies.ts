/**
 * @module bench/agent-bodies
 * Coding-agent turns in the four client formats, from one seeded conversation: a system prompt of
 * ~1,500 words, 20 tools of 5 described arguments, and tool-call turns with their results, as many as
 * reach the asked size (12 for 66 KB, about 44 for 200 KB). The same seed gives the same bytes on every
 * run and runtime, and the same tools in every format, as an agent sends the same tool list each turn.
 */

export type AgentFormat = 'chat' | 'messages' | 'responses' | 'gemini';

const WORDS = (
  'the file function test build error module request response value config server client token ' +
  'stream event store query index cache worker thread buffer parse format check result output input ' +
  'project change commit branch review type return async await object array string number field ' +
  'option default path directory source target schema model message channel upstream gateway key ' +
  'user limit retry timeout status header body line column'
).split(' ');

/** A linear congruential generator: the same words in the same order on every runtime. */
export function wordsFrom(seed: number) {
  let state = seed >>> 0;
  return (count: number): string => {
    const out: string[] = [];
    for (let index = 0; index < count; index++) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      out.push(WORDS[state % WORDS.length]!);
    }
    return out.join(' ');
  };
}

interface Tool {
  name: string;
  description: string;
  parameters: { type: 'object'; properties: Record<string, { type: string; description: string }>; required: string[] };
}

interface Turn {
  id: string;
  name: string;
  args: Record<string, string>;
  result: string;
}

interface Conversation {
  system: string;
  question: string;
  tools: Tool[];
  turns: Turn[];
}

function conversation(seed: number, turnCount: number): Conversation {
  const words = wordsFrom(seed);
  const system = Array.from({ length: 107 }, () => `${words(14)}.`).join(' ');
  const tools = Array.from({ length: 20 }, (_, tool): Tool => {
    const names = Array.from({ length: 5 }, (_, argument) => `arg_${argument}_${words(1)}`);
    const properties = Object.fromEntries(
      names.map((name, argument) => [name, { type: argument === 4 ? 'integer' : 'string', description: words(14) }]),
    );
    const description = words(24);
    return {
      name: `tool_${tool}_${words(1)}`,
      description,
      parameters: { type: 'object', properties, required: names.slice(0, 2) },
    };
  });
  const question = words(60);
  const turns = Array.from({ length: turnCount }, (_, turn): Turn => {
    const args = { path: `src/${words(1)}/${words(1)}.ts`, query: words(12) };
    const name = tools[(turn * 7) % tools.length]!.name;
    return { id: `call_${String(turn).padStart(4, '0')}bench`, name, args, result: words(396) };
  });
  return { system, question, tools, turns };
}

/** The body of one turn in `format` (Gemini's model and streaming are in its URL, not its body). */
function write(format: AgentFormat, model: string, stream: boolean, c: Conversation): Record<string, unknown> {
  const streaming = stream ? { stream: true } : {};
  switch (format) {
    case 'chat':
      return {
        model,
        messages: [
          { role: 'system', content: c.system },
          { role: 'user', content: c.question },
          ...c.turns.flatMap((turn) => [
            {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: turn.id, type: 'function', function: { name: turn.name, arguments: JSON.stringify(turn.args) } },
              ],
            },
            { role: 'tool', tool_call_id: turn.id, content: turn.result },
          ]),
        ],
        tools: c.tools.map((tool) => ({ type: 'function', function: tool })),
        max_tokens: 1024,
        ...streaming,
      };
    case 'messages':
      return {
        model,
        max_tokens: 1024,
        system: c.system,
        tools: c.tools.map(({ name, description, parameters }) => ({ name, description, input_schema: parameters })),
        messages: [
          { role: 'user', content: c.question },
          ...c.turns.flatMap((turn) => [
            { role: 'assistant', content: [{ type: 'tool_use', id: turn.id, name: turn.name, input: turn.args }] },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: turn.id, content: turn.result }] },
          ]),
        ],
        ...streaming,
      };
    case 'responses':
      return {
        model,
        instructions: c.system,
        tools: c.tools.map((tool) => ({ type: 'function', ...tool })),
        input: [
          { role: 'user', content: c.question },
          ...c.turns.flatMap((turn) => [
            { type: 'function_call', call_id: turn.id, name: turn.name, arguments: JSON.stringify(turn.args) },
            { type: 'function_call_output', call_id: turn.id, output: turn.result },
          ]),
        ],
        max_output_tokens: 1024,
        store: false,
        ...streaming,
      };
    case 'gemini':
      return {
        systemInstruction: { parts: [{ text: c.system }] },
        tools: [{ functionDeclarations: c.tools }],
        contents: [
          { role: 'user', parts: [{ text: c.question }] },
          ...c.turns.flatMap((turn) => [
            { role: 'model', parts: [{ functionCall: { name: turn.name, args: turn.args } }] },
            { role: 'user', parts: [{ functionResponse: { name: turn.name, response: { content: turn.result } } }] },
          ]),
        ],
        generationConfig: { maxOutputTokens: 1024 },
      };
  }
}

/**
 * An agent's turn in `format` of at least `bytes` (the fewest tool-call turns that reach it, at least
 * one), as the JSON text a client sends.
 */
export function agentTurn(format: AgentFormat, model: string, bytes: number, stream = false, seed = 20260101): string {
  // One turn adds about 4.2 KB in every format: start near the size, then step up.
  let turns = Math.max(1, Math.floor((bytes - 12_000) / 4_300));
  for (;;) {
    const text = JSON.stringify(write(format, model, stream, conversation(seed, turns)));
    if (Buffer.byteLength(text) >= bytes) return text;
    turns++;
  }
}
