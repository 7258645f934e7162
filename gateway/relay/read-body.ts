/**
 * @module gateway/relay/read-body
 * Reads a JSON request body with a size limit, refusing wrong content types, malformed JSON and JSON
 * nested too deeply with errors that say what to send instead.
 */
import type { IncomingMessage } from 'node:http';
import { GatewayError } from './errors.ts';
import { fieldNestedTooDeep, MAX_JSON_DEPTH } from './json-depth.ts';

export function checkContentType(request: IncomingMessage): void {
  const contentType = request.headers['content-type'];
  // No content type at all is accepted as JSON (some HTTP tools omit it); anything else must be JSON.
  if (contentType && !/^application\/([\w.+-]+\+)?json\b/i.test(contentType.trim())) {
    throw new GatewayError('unsupported_media_type', `Content-Type must be application/json, got "${contentType}".`, {
      code: 'unsupported_media_type',
    });
  }
}

/**
 * The whole body, or a refusal once it passes the limit. Read with 'data', 'end' and 'error'
 * listeners: an async iterator over the request costs a few kilobytes and microseconds per request on
 * the hot path. A client that leaves halfway needs no 'close' listener: Node destroys the request
 * with an ECONNRESET error, emitted because an 'error' listener is attached. The listeners stay on
 * after the promise settles (settling twice does nothing), which is cheaper than removing them.
 */
export function readBody(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) return Promise.reject(tooLarge(limitBytes));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    request.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > limitBytes) {
        // Read no more of it; the refusal is sent with `connection: close`, which ends the socket.
        refused = true;
        chunks.length = 0;
        request.pause();
        reject(tooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      // The listeners outlive the read (a stream can run for minutes): they must not hold the chunks.
      chunks.length = 0;
      resolve(body);
    });
    request.on('error', reject);
  });
}

function tooLarge(limitBytes: number): GatewayError {
  return new GatewayError('request_too_large', `Request body is larger than the limit of ${limitBytes} bytes.`);
}

/** Fatal: a lenient decoder would turn invalid bytes into U+FFFD and relay a body the client never sent. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export function parseJsonObject(body: Buffer): Record<string, unknown> {
  return parseJsonRequest(body).body;
}

/** The body parsed, and the text it was parsed from (a same-format relay sends that text on). */
export function parseJsonRequest(body: Buffer): { body: Record<string, unknown>; text: string } {
  if (body.length === 0) throw new GatewayError('invalid_request', 'Request body is empty; send a JSON object.');
  let text: string;
  try {
    text = strictUtf8.decode(body);
  } catch {
    throw new GatewayError('invalid_request', 'Request body is not valid UTF-8; send JSON encoded as UTF-8.', {
      code: 'invalid_json',
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new GatewayError('invalid_request', `Request body is not valid JSON: ${(error as Error).message}`, {
      code: 'invalid_json',
    });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new GatewayError('invalid_request', 'Request body must be a JSON object.', { code: 'invalid_json' });
  }
  // Each level takes at least two bytes (`[` and `]`): a smaller body cannot be too deep, and is not walked.
  if (body.length > 2 * MAX_JSON_DEPTH) {
    const field = fieldNestedTooDeep(parsed);
    if (field) {
      throw new GatewayError(
        'invalid_request',
        `${field} is nested deeper than ${MAX_JSON_DEPTH} levels (counted from the top of the request body); send a flatter value.`,
        { param: field, code: 'json_too_deep' },
      );
    }
  }
  return { body: parsed as Record<string, unknown>, text };
}
