/**
 * What the agent upstream needs from a request of any channel kind: the path's kind, whether it
 * streams, the model, and the tools it offers (functions, Responses custom tools, tools inside
 * namespaces or Codex's `additional_tools` items), whatever format the gateway wrote them in.
 */
export type UpstreamKind = 'openai' | 'openai-responses' | 'anthropic' | 'gemini' | 'bedrock' | 'azure';

export interface OfferedTool {
  name: string;
  /** a Responses custom (freeform) tool takes a string; every other tool a JSON object */
  freeform: boolean;
  /** the object tool's property names, to put a freeform tool's text in a converted one */
  properties: string[];
}

export interface UpstreamCall {
  kind: UpstreamKind;
  /** the route's own name: `count_tokens` and Gemini's `countTokens` are answered apart */
  route: 'generate' | 'count';
  streamed: boolean;
  model: string;
  tools: OfferedTool[];
  /** the body as text, where the cell's marker and a tool's result are looked for */
  text: string;
  body: any;
}

const geminiRoute = /^\/v1(?:beta)?\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;
const bedrockRoute = /^\/model\/([^/]+)\/(converse|converse-stream)$/;
const azureRoute = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/;

export function readCall(path: string, body: any): UpstreamCall | undefined {
  const text = JSON.stringify(body ?? null);
  const call = (kind: UpstreamKind, model: string, streamed: boolean, tools: OfferedTool[], route = 'generate') => ({
    kind,
    route: route as UpstreamCall['route'],
    streamed,
    model,
    tools,
    text,
    body,
  });
  if (path === '/v1/chat/completions') return call('openai', body.model, body.stream === true, chatTools(body.tools));
  if (path === '/v1/responses') return call('openai-responses', body.model, body.stream === true, responsesTools(body));
  if (path === '/v1/messages') return call('anthropic', body.model, body.stream === true, anthropicTools(body.tools));
  if (path === '/v1/messages/count_tokens') return call('anthropic', body.model, false, [], 'count');
  const azure = azureRoute.exec(path);
  if (azure) return call('azure', decodeURIComponent(azure[1]!), body.stream === true, chatTools(body.tools));
  const gemini = geminiRoute.exec(path);
  if (gemini) {
    const method = gemini[2]!;
    const route = method === 'countTokens' ? 'count' : 'generate';
    return call('gemini', decodeURIComponent(gemini[1]!), method === 'streamGenerateContent', geminiTools(body), route);
  }
  const bedrock = bedrockRoute.exec(path);
  if (bedrock) {
    const tools = (body.toolConfig?.tools ?? []).flatMap((tool: any) =>
      tool.toolSpec ? [objectTool(tool.toolSpec.name, tool.toolSpec.inputSchema?.json)] : [],
    );
    return call('bedrock', decodeURIComponent(bedrock[1]!), bedrock[2] === 'converse-stream', tools);
  }
  return undefined;
}

function objectTool(name: string, schema: any): OfferedTool {
  return { name, freeform: false, properties: Object.keys(schema?.properties ?? {}) };
}

function chatTools(tools: any[] | undefined): OfferedTool[] {
  return (tools ?? []).flatMap((tool) =>
    tool.type === 'function' ? [objectTool(tool.function.name, tool.function.parameters)] : [],
  );
}

function anthropicTools(tools: any[] | undefined): OfferedTool[] {
  return (tools ?? []).flatMap((tool) => (tool.input_schema ? [objectTool(tool.name, tool.input_schema)] : []));
}

function geminiTools(body: any): OfferedTool[] {
  return (body.tools ?? []).flatMap((tool: any) =>
    (tool.functionDeclarations ?? []).map((declaration: any) =>
      objectTool(declaration.name, declaration.parametersJsonSchema ?? declaration.parameters),
    ),
  );
}

/** Responses tools: top-level ones, and those Codex sends in `additional_tools` input items. */
function responsesTools(body: any): OfferedTool[] {
  const items = Array.isArray(body.input) ? body.input : [];
  const listed = [
    ...(body.tools ?? []),
    ...items.flatMap((item: any) => (item?.type === 'additional_tools' ? (item.tools ?? []) : [])),
  ];
  const flatten = (tool: any): OfferedTool[] => {
    if (tool.type === 'namespace') return (tool.tools ?? []).flatMap(flatten);
    if (tool.type === 'custom') return [{ name: tool.name, freeform: true, properties: [] }];
    if (tool.type === 'function') return [objectTool(tool.name, tool.parameters)];
    return [];
  };
  return listed.flatMap(flatten);
}
