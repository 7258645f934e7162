/**
 * @module gateway/console-api/usage-routes
 * The data overview and the usage log. Users see their own traffic; admins may pass `user_id`
 * (another user's id, or `all`).
 */
import { type Request, Router } from 'express';
import { type UsageLogEntry, usageLogsQuerySchema, usageOverviewQuerySchema } from '../../contracts/console-api.ts';
import type { LookupReadModel, UsageReadModel } from '../../stores/ports.ts';
import { ApiError, parseOrThrow } from './api-error.ts';
import { groupsQueryOf, withMetadataFilters } from './attribution-query.ts';
import { currentUser } from './guards.ts';

const MAX_RANGE_MS = 400 * 24 * 3_600_000;

export function scopeOf(request: Request, requested: string | undefined): string | null {
  const user = currentUser(request);
  if (!requested || requested === user.userId) return user.userId;
  if (user.role !== 'admin')
    throw new ApiError(403, 'admin_only', "Only administrators may see other users' usage.", 'user_id');
  return requested === 'all' ? null : requested;
}

export function usageRoutes(usage: UsageReadModel, lookups?: LookupReadModel): Router {
  /** Names keys by id, for the top-keys list and the log (null once a key is gone). */
  const tokenOf = (tokenId: string | null) => (tokenId && lookups?.tokenById(tokenId)) || null;

  const router = Router();

  router.get('/usage/overview', async (request, response) => {
    const query = parseOrThrow(usageOverviewQuerySchema, request.query);
    const from = Date.parse(query.from);
    const to = Date.parse(query.to);
    if (!(to > from)) throw new ApiError(400, 'invalid_request', '`to` must be later than `from`.', 'to');
    if (to - from > MAX_RANGE_MS)
      throw new ApiError(400, 'invalid_request', 'The range may span at most 400 days.', 'from');
    const userId = scopeOf(request, query.user_id);
    const groupBy = query.group_by;
    const [overview, groups] = await Promise.all([
      usage.overview({ ...query, userId }),
      groupBy === undefined ? undefined : usage.groups(groupsQueryOf({ ...query, group_by: groupBy }, userId)),
    ]);
    if (groups) overview.by_group = groups;
    const admin = currentUser(request).role === 'admin';
    overview.by_token = overview.by_token?.map((row) => {
      const token = tokenOf(row.token_id);
      return {
        ...row,
        token_name: token?.name ?? null,
        key_hint: token?.keyHint ?? null,
        revoked: token?.revoked ?? false,
        // Across users two keys may share a name: an administrator is told whose each one is.
        ...(admin ? { owner_email: (token && lookups?.userById(token.userId)?.email) || null } : {}),
      };
    });
    response.json(overview);
  });

  router.get('/usage/logs', async (request, response) => {
    const query = parseOrThrow(
      usageLogsQuerySchema.extend({ user_id: usageOverviewQuerySchema.shape.user_id }),
      withMetadataFilters(request.query),
    );
    const page = await usage.logs({ ...query, userId: scopeOf(request, query.user_id) });
    const describe = currentUser(request).role === 'admin' ? adminView(lookups) : userView;
    response.json({
      ...page,
      items: page.items.map((item) => describe({ ...item, token_name: tokenOf(item.token_id)?.name ?? null })),
    });
  });

  return router;
}

/** Channels are the operator's business: a user sees how many calls a request took, not where they went. */
function userView(item: UsageLogEntry): UsageLogEntry {
  return {
    ...item,
    channel_id: null,
    attempts: item.attempts?.map((attempt) => ({ ...attempt, channel_id: '' })),
  };
}

/** An administrator sees whose request it was and the channels by name. */
function adminView(lookups: LookupReadModel | undefined): (item: UsageLogEntry) => UsageLogEntry {
  const channelNames = new Map(lookups?.channels().map((channel) => [channel.channelId, channel.name]));
  const nameOf = (channelId: string | null | undefined) => (channelId && channelNames.get(channelId)) || null;
  return (item) => ({
    ...item,
    user_email: (item.user_id && lookups?.userById(item.user_id)?.email) || null,
    channel_name: nameOf(item.channel_id),
    attempts: item.attempts?.map((attempt) => ({ ...attempt, channel_name: nameOf(attempt.channel_id) })),
  });
}
