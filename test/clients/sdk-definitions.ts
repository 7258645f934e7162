/**
 * The SDKs teams build on, as clients of the gateway: each a small script (sdk-scripts/) running the
 * SDK's own tool loop, or its documented manual tool round, with a local `read_file` tool, against the
 * gateway's base URL. They are installed like the agent CLIs, pinned and outside the project: the
 * JavaScript ones with `npm install --prefix` into the cache (the script is copied there, so that it
 * resolves the SDK from the cache and never from the project's node_modules), the Python ones into a
 * venv in the cache. Each speaks one format, its default: `format` below.
 */
import { baseEnvironment, type ClientDefinition, type SdkInstall } from './client-definitions.ts';

const aiSdkPackages = {
  ai: '7.0.185',
  '@ai-sdk/openai': '4.0.126',
  '@ai-sdk/anthropic': '4.0.112',
  '@ai-sdk/google': '4.0.129',
};
const langchainJsPackages = {
  '@langchain/core': '1.4.0',
  '@langchain/openai': '1.6.0',
  '@langchain/anthropic': '1.5.11',
};
const pythonPackages = {
  'pydantic-ai-slim[openai]': '2.78.0',
  litellm: '1.110.2',
  'langchain-openai': '1.8.1',
};

/**
 * The models the SDKs ask for (every channel lists them too). OpenAI takes tools with reasoning on
 * only over Responses on the GPT-5.4 to GPT-6 families, and the SDKs know it: pydantic-ai refuses such
 * a tool call over Chat Completions before sending it, langchain-openai sends it to Responses. The
 * Chat Completions rows ask for a model that takes tools there, as a team's would.
 */
const models = {
  responses: 'gpt-6.2-sol',
  chat: 'gpt-4.1',
  anthropic: 'claude-haiku-4-5',
  gemini: 'gemini-3.8-flash',
};

function sdk(
  name: ClientDefinition['name'],
  title: string,
  format: ClientDefinition['format'],
  model: string,
  install: SdkInstall,
  env: Record<string, string> = {},
): ClientDefinition {
  const main = install.uses[0]!;
  return {
    name,
    title,
    format,
    sdk: install,
    packageName: main,
    pinned: install.packages[main]!,
    bin: install.runtime,
    models: [model],
    readTool: 'read_file',
    toolInput: (_tool, file) => ({ path: file }),
    command: ({ gatewayUrl, key, home, prompt, check }) => ({
      args: [],
      env: {
        ...baseEnvironment(home),
        GATEWAY_URL: gatewayUrl,
        GATEWAY_KEY: key,
        MODEL: model,
        PROMPT: prompt,
        CHECK: check,
        ...env,
      },
    }),
  };
}

const aiSdk = (script: string, uses: string): SdkInstall => ({
  runtime: 'node',
  group: 'ai-sdk',
  packages: aiSdkPackages,
  script,
  uses: ['ai', uses],
});
const langchainJs = (uses: string): SdkInstall => ({
  runtime: 'node',
  group: 'langchain-js',
  packages: langchainJsPackages,
  script: 'langchain.mjs',
  uses: [uses],
});
const python = (script: string, uses: string): SdkInstall => ({
  runtime: 'python',
  group: 'python-sdks',
  packages: pythonPackages,
  script,
  uses: [uses],
});

export const sdkClients: ClientDefinition[] = [
  sdk('ai-sdk-openai', 'AI SDK `openai`', 'openai-responses', models.responses, aiSdk('ai-sdk.mjs', '@ai-sdk/openai'), {
    SDK_PROVIDER: 'openai',
  }),
  sdk(
    'ai-sdk-anthropic',
    'AI SDK `anthropic`',
    'anthropic',
    models.anthropic,
    aiSdk('ai-sdk.mjs', '@ai-sdk/anthropic'),
    {
      SDK_PROVIDER: 'anthropic',
    },
  ),
  sdk('ai-sdk-google', 'AI SDK `google`', 'gemini', models.gemini, aiSdk('ai-sdk.mjs', '@ai-sdk/google'), {
    SDK_PROVIDER: 'google',
  }),
  sdk('langchain-js-openai', 'LangChain JS ChatOpenAI', 'openai', models.chat, langchainJs('@langchain/openai'), {
    SDK_PROVIDER: 'openai',
  }),
  sdk(
    'langchain-js-anthropic',
    'LangChain JS ChatAnthropic',
    'anthropic',
    models.anthropic,
    langchainJs('@langchain/anthropic'),
    {
      SDK_PROVIDER: 'anthropic',
    },
  ),
  sdk(
    'pydantic-ai',
    'pydantic-ai Agent',
    'openai',
    models.chat,
    python('pydantic_ai_agent.py', 'pydantic-ai-slim[openai]'),
  ),
  sdk('litellm', 'litellm.completion', 'openai', models.chat, python('litellm_completion.py', 'litellm'), {
    // The cost map from the package, not fetched from GitHub at import; no telemetry.
    LITELLM_LOCAL_MODEL_COST_MAP: 'True',
    LITELLM_TELEMETRY: 'False',
  }),
  sdk(
    'langchain-python-openai',
    'langchain-openai ChatOpenAI',
    'openai',
    models.chat,
    python('langchain_openai_chat.py', 'langchain-openai'),
  ),
];
