/**
 * @module gateway/console-api/session-routes
 * Sessions: the requests that named the same session (`x-gateway-session-id`, or an agent's own
 * session header), with their totals. A user sees the sessions of their own requests; an
 * administrator every user's (`user_id=all` on the list, any session by id).
 */
import { Router } from 'express';
import { type SessionDetail, sessionsQuerySchema } from '../../contracts/console-api.ts';
import type { LookupReadModel, UsageReadModel } from '../../stores/ports.ts';
import { ApiError, parseOrThrow } from './api-error.ts';
import { currentUser } from './guards.ts';
import { scopeOf } from './usage-routes.ts';

export function sessionRoutes(usage: UsageReadModel, lookups: LookupReadModel): Router {
  const router = Router();

  router.get('/sessions', async (request, response) => {
    const query = parseOrThrow(sessionsQuerySchema, request.query);
    response.json(await usage.sessions({ ...query, userId: scopeOf(request, query.user_id) }));
  });

  router.get('/sessions/:id', async (request, response) => {
    const user = currentUser(request);
    const sessionId = String(request.params['id']);
    const session = await usage.session(sessionId, user.role === 'admin' ? null : user.userId);
    // The same answer for a session of another account as for none: ids are not disclosed.
    if (!session) throw new ApiError(404, 'not_found', `No session "${sessionId.slice(0, 256)}" among your requests.`);
    response.json(user.role === 'admin' ? named(session, lookups) : withoutChannels(session));
  });

  return router;
}

/** Channels are the operator's business (as in the usage log). */
function withoutChannels(session: SessionDetail): SessionDetail {
  const { channels: _channels, ...rest } = session;
  return { ...rest, requests: session.requests.map(({ channel_id: _id, channel_name: _name, ...request }) => request) };
}

function named(session: SessionDetail, lookups: LookupReadModel): SessionDetail {
  const names = new Map(lookups.channels().map((channel) => [channel.channelId, channel.name]));
  return {
    ...session,
    channels: session.channels?.map((id) => names.get(id) ?? id),
    requests: session.requests.map((item) => ({
      ...item,
      channel_name: (item.channel_id && names.get(item.channel_id)) || null,
    })),
  };
}
