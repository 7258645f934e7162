/**
 * @module gateway/relay/json-depth
 * How deep a request body nests. The parser itself copes with any depth, but what the gateway does
 * next (the converters, `JSON.stringify` of the upstream request, the prompt estimate) recurses, and
 * past a few thousand levels that overflows the stack: a client's body must be refused, with the
 * field named, before any of that runs. No real request comes near the limit: a JSON schema of 20
 * levels is already rare.
 */

/** Levels of objects and arrays a request body may nest, its top-level object counted as the first. */
export const MAX_JSON_DEPTH = 100;

/** At most this many field names in a reported path (`tools[0].function.parameters` has three). */
const NAMED_SEGMENTS = 3;

/** One step of the path to a too-deep value; `branching`: the container it is in holds other values too. */
interface Step {
  segment: string | number;
  branching: boolean;
}

/**
 * The field (`tools[0].function.parameters`) under which `value` nests deeper than `limit` levels,
 * or null when it does not. The walk stops at the limit, so its own recursion stays shallow, and it
 * allocates nothing unless it finds something.
 */
export function fieldNestedTooDeep(value: unknown, limit: number = MAX_JSON_DEPTH): string | null {
  const path = deepPath(value, 1, limit);
  return path ? describePath(path.reverse()) : null;
}

/** The path to the first container past the limit, innermost step first; null when there is none. */
function deepPath(value: unknown, depth: number, limit: number): Step[] | null {
  if (value === null || typeof value !== 'object') return null;
  if (depth > limit) return [];
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      // Tested here rather than on entry: a call per string and number was half the walk's time.
      if (item === null || typeof item !== 'object') continue;
      const path = deepPath(item, depth + 1, limit);
      if (path) {
        path.push({ segment: index, branching: value.length > 1 });
        return path;
      }
    }
    return null;
  }
  for (const key in value) {
    const item: unknown = (value as Record<string, unknown>)[key];
    if (item === null || typeof item !== 'object') continue;
    const path = deepPath(item, depth + 1, limit);
    if (path) {
      path.push({ segment: key, branching: Object.keys(value).length > 1 });
      return path;
    }
  }
  return null;
}

/**
 * The field the client wrote: the path down to where the nesting becomes a single chain (a value
 * with one value in it, and so on down), which is where a hostile or runaway value starts, cut at
 * NAMED_SEGMENTS names.
 */
function describePath(path: Step[]): string {
  let end = 1;
  for (let index = 0; index < path.length; index++) if (path[index]!.branching) end = index + 1;
  let described = '';
  let names = 0;
  for (const { segment } of path.slice(0, end)) {
    if (typeof segment === 'number') described += `[${segment}]`;
    else if (names++ < NAMED_SEGMENTS) described += described ? `.${segment}` : segment;
    else break;
  }
  return described || 'the body';
}
