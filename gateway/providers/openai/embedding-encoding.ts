/**
 * @module gateway/providers/openai/embedding-encoding
 * An embedding vector in either of OpenAI's two encodings: a list of floats, or the base64 of the
 * same values as little-endian 32-bit floats (what the official SDKs decode, and what the `openai`
 * Node client asks for by default). Some OpenAI-compatible upstreams answer floats whatever the
 * request asked, so the gateway converts between the two. The vector is the upstream's, so each
 * conversion checks what it reads and says what was wrong (null) rather than encode garbage.
 */

const FLOAT_BYTES = 4;

/** The base64 of `vector` as float32 little-endian; null when an entry is not a finite number. */
export function floatsToBase64(vector: readonly unknown[]): string | null {
  const bytes = Buffer.allocUnsafe(vector.length * FLOAT_BYTES);
  for (let index = 0; index < vector.length; index++) {
    const value = vector[index];
    if (typeof value !== 'number' || !Number.isFinite(value)) return null;
    bytes.writeFloatLE(value, index * FLOAT_BYTES);
  }
  return bytes.toString('base64');
}

/** The floats a base64 vector holds; null when it is not whole float32 values. */
export function base64ToFloats(encoded: string): number[] | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) return null;
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.length % FLOAT_BYTES !== 0) return null;
  const vector = new Array<number>(bytes.length / FLOAT_BYTES);
  for (let index = 0; index < vector.length; index++) vector[index] = bytes.readFloatLE(index * FLOAT_BYTES);
  return vector;
}
