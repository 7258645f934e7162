// The Vercel AI SDK as an application uses it: generateText with a local tool and a step limit, its
// own tool loop. Run by the clients suite from the SDK's cache install (sdk-definitions.ts); the
// provider (openai: the Responses API, its default; anthropic; google) comes from SDK_PROVIDER.
import { readFileSync } from 'node:fs';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';

const { GATEWAY_URL, GATEWAY_KEY, MODEL, PROMPT, CHECK, SDK_PROVIDER } = process.env;

async function languageModel() {
  if (SDK_PROVIDER === 'anthropic') {
    const { createAnthropic } = await import('@ai-sdk/anthropic');
    return createAnthropic({ baseURL: `${GATEWAY_URL}/v1`, apiKey: GATEWAY_KEY })(MODEL);
  }
  if (SDK_PROVIDER === 'google') {
    const { createGoogleGenerativeAI } = await import('@ai-sdk/google');
    return createGoogleGenerativeAI({ baseURL: `${GATEWAY_URL}/v1beta`, apiKey: GATEWAY_KEY })(MODEL);
  }
  const { createOpenAI } = await import('@ai-sdk/openai');
  return createOpenAI({ baseURL: `${GATEWAY_URL}/v1`, apiKey: GATEWAY_KEY })(MODEL);
}

const tools = {
  read_file: tool({
    description: 'Reads a text file and returns its content.',
    inputSchema: jsonSchema({
      type: 'object',
      properties: { path: { type: 'string', description: 'the path of the file' } },
      required: ['path'],
      additionalProperties: false,
    }),
    execute: async ({ path }) => readFileSync(path, 'utf8'),
  }),
};

const result = await generateText({
  model: await languageModel(),
  prompt: PROMPT,
  ...(CHECK === 'tool' && { tools, stopWhen: stepCountIs(5) }),
  maxRetries: 0,
});
console.log(result.text);
