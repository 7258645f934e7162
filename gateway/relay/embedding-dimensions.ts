/**
 * @module gateway/relay/embedding-dimensions
 * The most `dimensions` an embeddings request may ask of a model the gateway knows: the length of
 * its vectors (a model cannot make longer ones), by the name the client asks for. Other models are
 * bounded by the contract's general cap (MAX_EMBEDDING_DIMENSIONS). Checked before routing, so a
 * request the upstream would refuse costs no upstream call and no hold.
 */
import { GatewayError } from './errors.ts';

/** OpenAI's models that take `dimensions`, and their full vector length. */
const VECTOR_LENGTHS: ReadonlyMap<string, number> = new Map([
  ['text-embedding-3-small', 1536],
  ['text-embedding-3-large', 3072],
]);

/** Refuses a `dimensions` over what `model` makes; the contract has already checked it is a whole number. */
export function checkDimensions(model: string, dimensions: unknown): void {
  if (typeof dimensions !== 'number') return;
  const most = VECTOR_LENGTHS.get(model);
  if (most === undefined || dimensions <= most) return;
  throw new GatewayError(
    'invalid_request',
    `dimensions: must be at most ${most} for ${model}, the length of its vectors (got ${dimensions}). Ask for ${most} or fewer.`,
    { param: 'dimensions' },
  );
}
