// LangChain JS as an application uses it: a chat model with a local tool bound (bindTools) and the
// tool round written by hand. Run by the clients suite from the SDK's cache install
// (sdk-definitions.ts); SDK_PROVIDER picks ChatOpenAI (Chat Completions) or ChatAnthropic (Messages).
import { readFileSync } from 'node:fs';
import { HumanMessage, ToolMessage } from '@langchain/core/messages';

const { GATEWAY_URL, GATEWAY_KEY, MODEL, PROMPT, CHECK, SDK_PROVIDER } = process.env;

async function chatModel() {
  if (SDK_PROVIDER === 'anthropic') {
    const { ChatAnthropic } = await import('@langchain/anthropic');
    return new ChatAnthropic({ model: MODEL, apiKey: GATEWAY_KEY, anthropicApiUrl: GATEWAY_URL, maxRetries: 0 });
  }
  const { ChatOpenAI } = await import('@langchain/openai');
  return new ChatOpenAI({
    model: MODEL,
    apiKey: GATEWAY_KEY,
    configuration: { baseURL: `${GATEWAY_URL}/v1` },
    maxRetries: 0,
  });
}

const readFile = {
  type: 'function',
  function: {
    name: 'read_file',
    description: 'Reads a text file and returns its content.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'the path of the file' } },
      required: ['path'],
    },
  },
};

const textOf = (message) =>
  typeof message.content === 'string'
    ? message.content
    : message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');

const base = await chatModel();
const model = CHECK === 'tool' ? base.bindTools([readFile]) : base;
const messages = [new HumanMessage(PROMPT)];
let reply = await model.invoke(messages);
for (let round = 0; round < 4 && reply.tool_calls?.length; round += 1) {
  messages.push(reply);
  for (const call of reply.tool_calls) {
    messages.push(new ToolMessage({ tool_call_id: call.id, content: readFileSync(call.args.path, 'utf8') }));
  }
  reply = await model.invoke(messages);
}
console.log(textOf(reply));
