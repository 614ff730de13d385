// /mock/sessions: list active sessions (all at once, or in pages), end one or all (their tokens stop being
// active).
import express from 'express';
import { invalidRequest, OAuthError } from '../oauth/errors.js';
import type { Session } from '../store/state-store.js';
import type { Provider } from '../realm/provider.js';

/** The largest page `limit` takes; a page without `limit` (only a cursor) has DEFAULT_LIMIT. */
const MAX_LIMIT = 1000;
const DEFAULT_LIMIT = 100;

/** A listed session: `sub` as its client sees it (pairwise), the realm's own `localSub`, each client's `subs`. */
interface SessionView extends Session {
  localSub: string;
  subs: Record<string, string>;
}

const CURSOR_VERSION = '1 ';

/** An opaque cursor: the position after the session id `id` (base64url, versioned). */
function encodeCursor(id: string): string {
  return Buffer.from(CURSOR_VERSION + id, 'utf8').toString('base64url');
}

/** The session id a cursor of encodeCursor() names; undefined for anything else. */
function decodeCursor(cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith(CURSOR_VERSION) || text.length === CURSOR_VERSION.length) return undefined;
  const id = text.slice(CURSOR_VERSION.length);
  // Canonical only: a cursor this server did not make (altered, truncated, not UTF-8) is refused.
  return encodeCursor(id) === cursor ? id : undefined;
}

/** One query parameter as a single string; a repeated one is refused. */
function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw invalidRequest(`Duplicated parameter: ${name}`);
  if (typeof value !== 'string') throw invalidRequest(`Malformed parameter: ${name}`);
  return value;
}

interface PageQuery {
  limit: number;
  /** The id the page starts after; undefined for the first page. */
  after: string | undefined;
}

/**
 * `?limit=&cursor=`: undefined when neither is given (the whole list, as before pages existed); a bad
 * `limit` or `cursor` is an invalid_request naming it.
 */
function parsePageQuery(query: Record<string, unknown>): PageQuery | undefined {
  const limit = single(query, 'limit');
  const cursor = single(query, 'cursor');
  if (limit === undefined && cursor === undefined) return undefined;
  let size = DEFAULT_LIMIT;
  if (limit !== undefined) {
    if (!/^\d{1,7}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_LIMIT)
      throw invalidRequest(
        `Invalid parameter: limit "${limit.slice(0, 40)}" (an integer from 1 to ${MAX_LIMIT})`,
      );
    size = Number(limit);
  }
  let after: string | undefined;
  if (cursor !== undefined) {
    after = decodeCursor(cursor);
    if (after === undefined)
      throw invalidRequest(
        'Invalid parameter: cursor (pass the nextCursor of the previous page unchanged; omit cursor for the first page)',
      );
  }
  return { limit: size, after };
}

/** A session as GET /mock/sessions lists it: the subs as its clients see them (pairwise subjects). */
function sessionView(p: Provider, session: Session): SessionView {
  const serviceAccount = session.username === undefined;
  const seenBy = (clientId: string): string => {
    const client = p.realm.clients.get(clientId);
    return client === undefined ? session.sub : p.subjectIds.subFor(client, session.sub, serviceAccount);
  };
  const subs: Record<string, string> = {};
  for (const clientId of session.clients) subs[clientId] = seenBy(clientId);
  const { authTime, expiresAt, ...rest } = session;
  return { ...rest, sub: seenBy(session.clientId), localSub: session.sub, subs, authTime, expiresAt };
}

export function sessionRoutes(p: Provider): express.Router {
  const router = express.Router();
  router.get('/', async (req, res) => {
    const page = parsePageQuery(req.query);
    if (page === undefined) {
      res.json({ sessions: (await p.store.sessions()).map((s) => sessionView(p, s)) });
      return;
    }
    const { sessions, more } = await p.store.sessionPage(page.after, page.limit);
    const last = sessions[sessions.length - 1];
    const nextCursor = more && last !== undefined ? encodeCursor(last.id) : null;
    if (nextCursor !== null) {
      const path = req.originalUrl.split('?')[0] ?? '';
      res.set('Link', `<${path}?limit=${page.limit}&cursor=${nextCursor}>; rel="next"`);
    }
    res.json({ sessions: sessions.map((s) => sessionView(p, s)), nextCursor });
  });
  router.delete('/', async (_req, res) => {
    res.json({ ended: await p.store.endAllSessions('qa') });
  });
  router.delete('/:id', async (req, res) => {
    const id = req.params['id'] ?? '';
    if ((await p.store.activeSession(id)) === undefined || !(await p.store.endSession(id, 'qa')))
      throw new OAuthError('not_found', `No active session "${id}"`, 404);
    res.json({ ended: 1 });
  });
  return router;
}
