// The start page at `/`: each realm's issuer, discovery, keys and inspector, and a sign-in link per client
// that signs in with a browser; each link leads to the login page. Under an HTTP relative path it moves there.
import { describe, expect, it } from 'vitest';
import { DEFAULT_FIXTURES } from '../helpers/bundled.js';
import { useIdp } from '../helpers/server.js';

/** The hrefs of a page, HTML entities decoded. */
function hrefs(html: string): string[] {
  return [...html.matchAll(/href="([^"]*)"/g)].map((m) => (m[1] ?? '').replaceAll('&#38;', '&'));
}

describe.each([
  ['the fjord fixtures', undefined],
  ['the bundled fixtures (a version 4 client among them)', DEFAULT_FIXTURES],
])('GET / on %s', (_name, fixtures) => {
  const idp = useIdp(fixtures !== undefined ? { fixtures } : {});

  it('answers an HTML page with the realm, its discovery, keys and inspector', async () => {
    const response = await fetch(`${idp.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'none'");
    const html = await response.text();
    expect(html).toContain(`Realm <span class="client">${fixtures === undefined ? 'fjord' : 'mock'}</span>`);
    const links = hrefs(html);
    expect(links).toEqual(
      expect.arrayContaining([
        `${idp.issuer}/.well-known/openid-configuration`,
        `${idp.issuer}/protocol/openid-connect/certs`,
        `${idp.issuer}/mock/ui`,
        `${idp.url}/health`,
      ]),
    );
  });

  it('every sign-in link shows the login page', async () => {
    const links = hrefs(await (await fetch(`${idp.url}/`)).text()).filter((l) =>
      l.includes('/protocol/openid-connect/auth?'),
    );
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) {
      const response = await fetch(link, { redirect: 'manual' });
      const html = await response.text();
      expect(response.status, `${link}: ${html}`).toBe(200);
      expect(html).toContain('Sign in to');
    }
  });

  it.each(['/index.html', '/nothing'])('GET %s is still the JSON 404', async (path) => {
    const response = await fetch(`${idp.url}${path}`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: 'not_found' });
  });
});

describe('GET / on the fjord fixtures: the sign-in links', () => {
  const idp = useIdp({});

  it('links a sign-in for each client with the code flow and a redirect URI without a wildcard', async () => {
    const links = hrefs(await (await fetch(`${idp.url}/`)).text());
    const clients = links
      .filter((l) => l.includes('/protocol/openid-connect/auth?'))
      .map((l) => new URL(l).searchParams.get('client_id'));
    // kiosk-spa has only a wildcard redirect URI; ledger-sync has no code flow.
    expect(clients).toEqual(expect.arrayContaining(['teller-web', 'counter-app', 'vault-signer']));
    expect(clients).not.toContain('kiosk-spa');
    expect(clients).not.toContain('ledger-sync');
  });
});

describe('GET / under --http-relative-path /auth', () => {
  const idp = useIdp({ httpRelativePath: '/auth' });

  it.each([
    ['/auth', 200],
    ['/auth/', 200],
    ['/', 404],
  ])('GET %s answers %i', async (path, status) => {
    const response = await fetch(`${idp.url}${path}`);
    expect(response.status).toBe(status);
    if (status === 200) {
      const links = hrefs(await response.text());
      expect(links).toContain(`${idp.url}/auth/realms/fjord/mock/ui`);
      expect(links).toContain(`${idp.url}/auth/health`);
    }
  });
});
