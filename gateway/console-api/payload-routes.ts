/**
 * @module gateway/console-api/payload-routes
 * A request's captured payload, for the usage log's row detail. Only the account that made the call
 * and administrators read it; anyone else gets the same 404 as for a request with no payload, so a
 * request id discloses nothing.
 */
import { promisify } from 'node:util';
import { gunzip, zstdDecompress } from 'node:zlib';
import { Router } from 'express';
import type { PayloadView } from '../../contracts/console-api-payloads.ts';
import { type CapturedPayload, capturedPayloadSchema } from '../../contracts/events/index.ts';
import type { PayloadStore, StoredPayload } from '../../stores/ports.ts';
import { ApiError } from './api-error.ts';
import { currentUser } from './guards.ts';

const decompress = { zstd: promisify(zstdDecompress), gzip: promisify(gunzip) };

async function documentOf(stored: StoredPayload): Promise<CapturedPayload> {
  const raw = await decompress[stored.encoding](stored.data);
  return capturedPayloadSchema.parse(JSON.parse(raw.toString('utf8')));
}

export function payloadRoutes(payloads: PayloadStore): Router {
  const router = Router();

  router.get('/usage/logs/:requestId/payload', async (request, response) => {
    const user = currentUser(request);
    const stored = await payloads.find(request.params.requestId!);
    if (!stored || (stored.userId !== user.userId && user.role !== 'admin')) {
      throw new ApiError(
        404,
        'payload_not_found',
        'No captured payload for this request: capture was off for its key, it lapsed or was deleted, or it is not yours.',
      );
    }
    const document = await documentOf(stored);
    const view: PayloadView = {
      request_id: stored.requestId,
      token_id: stored.tokenId,
      endpoint: document.endpoint,
      stream: document.stream,
      status: document.status,
      captured_at: stored.capturedAt,
      expires_at: stored.expiresAt,
      raw_bytes: stored.rawBytes,
      stored_bytes: stored.storedBytes,
      request: document.request,
      reply: document.reply,
    };
    response.json(view);
  });

  return router;
}
