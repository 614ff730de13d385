// The start page at `/`: what this server serves and where to go next (each realm's discovery, a sign-in
// link per client that can sign in, the inspector, the health check), so a browser pointed at the port
// finds its way instead of a JSON 404.
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Client } from '../fixtures/realm.js';
import type { Provider } from '../realm/provider.js';
import { requestOrigin } from './origin.js';
import { escapeHtml, sendPage } from './pages.js';

/** The verifier behind the sign-in links' PKCE challenge: the links only show the login page. */
const LINK_VERIFIER = 'mock-idp-start-page-sign-in-link-verifier-0000';
const LINK_CHALLENGE = createHash('sha256').update(LINK_VERIFIER).digest('base64url');

/** Where a client is sent after signing in from the start page: its first redirect URI without a wildcard. */
function signInRedirect(client: Client): string | undefined {
  if (!client.grants.includes('authorization_code')) return undefined;
  return client.redirectUris.find((uri) => !uri.includes('*'));
}

/**
 * An authorize request that passes every version's rules (state, nonce, PKCE S256): following it shows the
 * login page, and the client's redirect URI then gets a code it did not ask for.
 */
function signInLink(issuer: string, client: Client, redirectUri: string): string {
  const query = new URLSearchParams({
    client_id: client.id,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid',
    state: 'start-page',
    nonce: 'start-page',
    code_challenge: LINK_CHALLENGE,
    code_challenge_method: 'S256',
  });
  return `${issuer}/protocol/openid-connect/auth?${query.toString()}`;
}

const link = (href: string, text = href): string => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;

function realmSection(p: Provider, origin: string): string {
  const issuer = p.issuerFor(origin);
  const signIns = [...p.realm.clients.values()]
    .map((client) => {
      const redirectUri = signInRedirect(client);
      if (redirectUri === undefined) return '';
      return `<li>${link(signInLink(issuer, client, redirectUri), `Sign in to ${client.id}`)} <span class="muted">→ ${escapeHtml(redirectUri)}</span></li>`;
    })
    .filter((item) => item !== '')
    .join('\n');
  return `<section class="realm"><h2>Realm <span class="client">${escapeHtml(p.realm.name)}</span></h2>
<dl class="index">
<dt>Issuer</dt><dd><code>${escapeHtml(issuer)}</code></dd>
<dt>Discovery</dt><dd>${link(`${issuer}/.well-known/openid-configuration`)}</dd>
<dt>Keys</dt><dd>${link(`${issuer}/protocol/openid-connect/certs`)}</dd>
<dt>Inspector</dt><dd>${link(`${issuer}/mock/ui`)} <span class="muted">sessions, requests, clock, token decoder</span></dd>
</dl>
${signIns !== '' ? `<ul class="links">${signIns}</ul>` : '<p class="muted">No client of this realm signs in with a browser.</p>'}
</section>`;
}

/** GET / (under the HTTP relative path when one is set). */
export function sendIndexPage(
  req: Request,
  res: Response,
  realms: readonly Provider[],
  relativePath: string,
): void {
  const origin = requestOrigin(req);
  const body = `<main class="start"><h1>mock-idp</h1>
<p class="muted">A mock OpenID Connect provider for tests, serving ${realms.length === 1 ? 'one realm' : `${realms.length} realms`}.</p>
${realms.map((p) => realmSection(p, origin)).join('\n')}
<p class="muted foot">Health: ${link(`${origin}${relativePath}/health`)} · Documentation: <code>README.md</code> and <code>docs/</code> in the mock-idp package (<code>node_modules/mock-idp/docs</code>) or repository.</p>
</main>`;
  sendPage(res, 200, 'mock-idp', body);
}
