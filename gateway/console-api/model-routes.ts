/**
 * @module gateway/console-api/model-routes
 * What a signed-in person may call and its price: `GET /api/models/prices`, optionally for one of
 * their keys (`token_id`), whose allowlist narrows the list.
 */
import { Router } from 'express';
import { modelCatalogQuerySchema } from '../../contracts/console-api-models.ts';
import type { CommandContext } from '../commands/command-context.ts';
import type { PriceBook } from '../pricing/price-book.ts';
import { ApiError, parseOrThrow } from './api-error.ts';
import { currentUser } from './guards.ts';
import { modelCatalog } from './model-catalog.ts';

export function modelRoutes(context: CommandContext, prices: PriceBook | undefined): Router {
  const router = Router();
  const { lookups } = context.stores;

  router.get('/models/prices', (request, response) => {
    const user = currentUser(request);
    const query = parseOrThrow(modelCatalogQuerySchema, request.query);
    let allowed: string[] | null = null;
    if (query.token_id !== undefined) {
      const token = lookups.tokenById(query.token_id);
      // Another person's key is not there at all, as everywhere in the console API.
      if (!token || token.userId !== user.userId) {
        throw new ApiError(404, 'not_found', 'No such API key.', 'token_id');
      }
      allowed = token.models;
    }
    response.json({ items: modelCatalog(lookups.channels(), prices, allowed, context.now()) });
  });

  return router;
}
