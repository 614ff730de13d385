// The device flow's two endpoints (RFC 8628): POST /protocol/openid-connect/auth/device, where a client gets a
// device code and a user code, and the page at /device, where a person enters that code, picks a user on the
// login page (a Keycloak realm's: its username and password form too, and the pages of the user's required
// actions) and approves (or cancels: the device hears access_denied).
import type { RequestHandler } from 'express';
import { isDisabled, userByHint } from '../../fixtures/realm.js';
import { decideBackchannel, deviceRequestByUserCode } from '../../oauth/backchannel.js';
import { authorizeDevice } from '../../oauth/grants/device-code.js';
import type { RealmContext } from '../../realm/context.js';
import { PATHS } from '../../realm/paths.js';
import { authenticateAt, issuerOf, noteForLog, paramsOf, sendNoStore } from '../context.js';
import { passwordForm, postedLogin } from '../password-login.js';
import type { CompleteAction } from '../required-actions.js';
import {
  sendDeviceCodePage,
  sendDeviceDonePage,
  sendActionPage,
  sendLoginPage,
  hintNotice,
} from '../pages.js';

export function deviceAuthorizationHandler(p: RealmContext): RequestHandler {
  return async (req, res) => {
    const params = paramsOf(req);
    const issuer = issuerOf(res);
    // As at the token endpoint; an assertion may name this endpoint too.
    const { client } = await authenticateAt(p, req, res, params, PATHS.deviceAuthorization);
    sendNoStore(res, await authorizeDevice(p, client, params, issuer));
  };
}

/**
 * GET: the box for the user code (filled from `?user_code=`). POST with `user_code`: the login page of the
 * device's client; POST with `user_code` and `login_hint` (a user button) approves, with `cancel` denies. A
 * Keycloak realm's user with required actions gets their pages first, as at /auth (Terms and Conditions'
 * Decline denies).
 */
export function devicePageHandler(p: RealmContext, completeAction?: CompleteAction): RequestHandler {
  return async (req, res) => {
    const action = issuerOf(res) + PATHS.device;
    const params = paramsOf(req);
    const typed = params.get('user_code');
    if (req.method !== 'POST' || typed === undefined) {
      sendDeviceCodePage(res, { action, ...(typed !== undefined ? { userCode: typed } : {}) });
      return;
    }
    const found = await deviceRequestByUserCode(p, typed);
    if (!found.ok) {
      sendDeviceCodePage(res, { action, userCode: typed, notice: found.problem, status: found.status });
      return;
    }
    const { request } = found;
    const userCode = request.userCode ?? typed;
    const client = p.realm.clients.get(request.clientId);
    const clientName = client?.name ?? request.clientId;
    noteForLog(res, { client: request.clientId });
    // A Keycloak realm's username and password form, or a user button (login_hint), as on the login page; the
    // login page's Cancel (a required action's page has its own: Terms and Conditions' Decline).
    const cancelled = params.get('cancel') !== undefined && !params.has('session_code');
    const posted = cancelled ? undefined : await postedLogin(p, req.method, params, completeAction);
    if (cancelled || posted?.declined === true) {
      await decideBackchannel(p, 'device', request.id, 'deny');
      sendDeviceDonePage(res, { approved: false, clientName });
      return;
    }
    if (posted?.step !== undefined) {
      sendActionPage(res, {
        action,
        params: [['user_code', userCode]],
        realm: passwordForm(p.realm, posted)?.realm ?? p.realm.name,
        stage: posted.step,
      });
      return;
    }
    const hint = params.get('login_hint');
    const user =
      posted !== undefined ? posted.user : hint !== undefined ? userByHint(p.realm, hint) : undefined;
    const disabled = posted === undefined && user !== undefined && isDisabled(p.realm, user.username);
    if (user !== undefined && !disabled) {
      const decided = await decideBackchannel(p, 'device', request.id, 'approve', user.username);
      if (decided.ok) {
        noteForLog(res, { user: user.username });
        sendDeviceDonePage(res, { approved: true, clientName, username: user.username });
        return;
      }
      sendDeviceCodePage(res, {
        action,
        userCode,
        notice: `Code ${userCode} was ${decided.why === 'expired' ? 'not approved in time: start again on your device' : 'already used'}`,
        status: 409,
      });
      return;
    }
    const form = passwordForm(p.realm, posted);
    sendLoginPage(res, {
      action,
      params: [['user_code', userCode]],
      ...(form !== undefined ? { passwordForm: form } : {}),
      users: [...p.realm.users.values()],
      clientId: request.clientId,
      ...(client?.name !== undefined ? { clientName: client.name } : {}),
      altsub: p.realm.brand.altsub,
      brand: p.realm.brand.word,
      lead: `Signing in on a device that shows the code ${userCode}`,
      ...(hint !== undefined && posted === undefined ? { notice: hintNotice(hint, disabled) } : {}),
    });
  };
}
