// /mock/device and /mock/ciba: a user's decision on a device authorization or a CIBA request, from a script;
// GET lists the requests held (the inspector shows the pending ones, with their binding_message).
import express from 'express';
import { z } from 'zod';
import { isDisabled, userByHint } from '../fixtures/realm.js';
import {
  decideBackchannel,
  normaliseUserCode,
  statusAt,
  type BackchannelKind,
  type DecideResult,
} from '../oauth/backchannel.js';
import { invalidRequest, OAuthError } from '../oauth/errors.js';
import type { Provider } from '../realm/provider.js';
import type { BackchannelRequest } from '../store/state-store.js';
import { parseBody } from './body.js';

const decision = z.enum(['approve', 'deny']);
const deviceSchema = z.strictObject({
  user_code: z.string().min(1),
  user: z.string().min(1).optional(),
  decision,
});
const cibaSchema = z.strictObject({ auth_req_id: z.string().min(1), decision });

/** A request as the QA API lists it: its status now (a CIBA request may have approved itself), times in ISO. */
function view(r: BackchannelRequest, now: number): Record<string, unknown> {
  const iso = (s: number): string => new Date(s * 1000).toISOString();
  return {
    kind: r.kind,
    ...(r.kind === 'device' ? { user_code: r.userCode } : { auth_req_id: r.id }),
    client: r.clientId,
    ...(r.username !== undefined ? { user: r.username } : {}),
    scope: r.scopes.join(' '),
    ...(r.bindingMessage !== undefined ? { binding_message: r.bindingMessage } : {}),
    status: r.expiresAt <= now ? 'expired' : statusAt(r, now),
    created: iso(r.createdAt),
    expires: iso(r.expiresAt),
    ...(r.autoApproveAt !== undefined ? { autoApprove: iso(r.autoApproveAt) } : {}),
  };
}

function answer(result: DecideResult, name: string, now: number): Record<string, unknown> {
  if (result.ok) return view(result.request, now);
  if (result.why === 'unknown')
    throw new OAuthError('not_found', `No ${name} is held: unknown, or already used`, 404);
  if (result.why === 'expired') throw invalidRequest(`The ${name} has expired: it can no longer be decided`);
  throw new OAuthError(
    'conflict',
    `The ${name} was already ${result.request?.status === 'denied' ? 'denied' : 'approved'}`,
    409,
  );
}

function listRoute(p: Provider, kind: BackchannelKind): express.RequestHandler {
  return async (_req, res) => {
    const now = p.clock.nowSeconds();
    const requests = (await p.store.backchannelRequests())
      .filter((r) => r.kind === kind)
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
      .map((r) => view(r, now));
    res.set('Cache-Control', 'no-store').json({ requests });
  };
}

/** POST /mock/device `{user_code, user, decision}`; GET lists device requests. */
export function deviceRoutes(p: Provider): express.Router {
  const router = express.Router();
  router.get('/', listRoute(p, 'device'));
  router.post('/', async (req, res) => {
    const body = parseBody(deviceSchema, req.body, 'device decision');
    const userCode = normaliseUserCode(body.user_code);
    const name = `device request with user_code "${body.user_code.slice(0, 40)}"`;
    const id = userCode !== undefined ? await p.store.deviceCodeOf(userCode) : undefined;
    if (id === undefined)
      throw new OAuthError('not_found', `No ${name} is held: unknown, or already used`, 404);
    let username: string | undefined;
    if (body.decision === 'approve') {
      if (body.user === undefined)
        throw invalidRequest(
          'Invalid device decision: user: required to approve (a username, or BID:{national id})',
        );
      username = userByHint(p.realm, body.user)?.username;
      if (username === undefined)
        throw invalidRequest(
          `Invalid device decision: user: "${body.user.slice(0, 60)}" is no user of this realm`,
        );
      if (isDisabled(p.realm, username))
        throw invalidRequest(`Invalid device decision: user: "${username}" is disabled and cannot sign in`);
    }
    const result = await decideBackchannel(p, 'device', id, body.decision, username);
    res.set('Cache-Control', 'no-store').json(answer(result, name, p.clock.nowSeconds()));
  });
  return router;
}

/** POST /mock/ciba `{auth_req_id, decision}`; GET lists CIBA requests. */
export function cibaRoutes(p: Provider): express.Router {
  const router = express.Router();
  router.get('/', listRoute(p, 'ciba'));
  router.post('/', async (req, res) => {
    const body = parseBody(cibaSchema, req.body, 'CIBA decision');
    const result = await decideBackchannel(p, 'ciba', body.auth_req_id, body.decision);
    res.set('Cache-Control', 'no-store').json(answer(result, 'authentication request', p.clock.nowSeconds()));
  });
  return router;
}
