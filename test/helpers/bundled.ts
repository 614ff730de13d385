// The bundled realm (fixtures/default.yaml, realm `mock`): its clients' credentials and its code flow, for
// tests of the server as users first meet it (the CLI on its defaults, the QA API).
import { DEFAULT_FIXTURES } from '../../src/server.js';
import { basic, postForm, type Answer } from './http.js';
import { endpointsOf } from './server.js';

export { DEFAULT_FIXTURES };

export const WEB_APP = basic('web-app', 'web-secret');
export const BATCH_JOB = basic('batch-job', 'batch-secret');
export const PAYMENTS_API = basic('payments-api', 'rs-secret');
const REDIRECT_URI = 'http://localhost:3000/callback';

/** Authorize as `user` (login_hint) at the realm base `base`; answers the redirect's Location and its code. */
export async function authorize(
  base: string,
  user: string,
  scope = 'openid profile',
  nonce: string | null = 'n0',
): Promise<{ location: string; code: string }> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'web-app',
    redirect_uri: REDIRECT_URI,
    scope,
    state: 'st',
    ...(nonce !== null ? { nonce } : {}),
    login_hint: user,
  });
  const response = await fetch(`${endpointsOf(base).auth}?${query}`, { redirect: 'manual' });
  const location = response.headers.get('location') ?? '';
  const code = new URL(location).searchParams.get('code') ?? '';
  return { location, code };
}

/** authorization_code exchange for web-app. */
export function exchangeCode(base: string, code: string): Promise<Answer> {
  return postForm(
    endpointsOf(base).token,
    { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI },
    WEB_APP,
  );
}
