/**
 * @module gateway/providers/responses/namespaced-tools
 * Responses `namespace` tools on a converted channel. No other format groups functions, so each
 * function of a namespace is sent as one tool named `<namespace>__<function>`: unique as long as the
 * client's own names are, and readable to the model. Calls of such a name are answered to the client
 * as the namespace's function (`name` its own, `namespace` beside it), whole and streamed, and a call
 * the client sends back with its namespace is flattened again.
 */

export interface NamespacedName {
  namespace: string;
  name: string;
}

const SEPARATOR = '__';

export function flatToolName(namespace: string, name: string): string {
  return `${namespace}${SEPARATOR}${name}`;
}

type LooseTool = { type?: unknown; name?: unknown; tools?: unknown };

/** The flattened name of every function of the request's namespace tools, with the names the client knows. */
export function namespacedTools(tools: unknown): ReadonlyMap<string, NamespacedName> {
  const names = new Map<string, NamespacedName>();
  if (!Array.isArray(tools)) return names;
  for (const tool of tools as LooseTool[]) {
    if (tool?.type !== 'namespace' || typeof tool.name !== 'string' || !Array.isArray(tool.tools)) continue;
    for (const inner of tool.tools as LooseTool[]) {
      if (inner?.type === 'function' && typeof inner.name === 'string') {
        names.set(flatToolName(tool.name, inner.name), { namespace: tool.name, name: inner.name });
      }
    }
  }
  return names;
}

/** A function call's fields as the client knows the function: its own name, and its namespace when it has one. */
export function clientCallName(
  flatName: string,
  names: ReadonlyMap<string, NamespacedName>,
): { name: string; namespace?: string } {
  const known = names.get(flatName);
  return known ? { name: known.name, namespace: known.namespace } : { name: flatName };
}
