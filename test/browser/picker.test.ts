// The HTML user picker in headless Chromium: open authorize without login_hint, click a user, land with a code.
import type { IncomingMessage } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, exchangeCode } from '../helpers/flows.js';
import { s256, verifyToken } from '../helpers/jwt.js';
import { useIdp, useLocalServer, type LocalServer } from '../helpers/server.js';
import { skipBrowser, useChromium } from './harness.js';

const VERIFIER = 'browser-verifier-0123456789-abcdefghijklmnopqrstuvwxyz';

interface Callback {
  method: string;
  params: URLSearchParams;
}

/** A tiny app on 127.0.0.1:0 that records what arrives at /cb (GET query or form_post body). */
function useCallbackApp(received: Callback[]): LocalServer {
  const body = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => resolve(text));
    });
  return useLocalServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/cb') {
      res.writeHead(404).end();
      return;
    }
    const params = req.method === 'POST' ? new URLSearchParams(await body(req)) : url.searchParams;
    received.push({ method: req.method ?? '', params });
    res.writeHead(200, { 'content-type': 'text/html' }).end('<h1 id="done">Signed in</h1>');
  });
}

describe.skipIf(skipBrowser)('user picker in a browser', () => {
  const idp = useIdp();
  const received: Callback[] = [];
  const app = useCallbackApp(received);
  const browser = useChromium();
  let redirectUri: string;

  beforeAll(() => {
    redirectUri = `${app.url}/cb`;
  });

  it('picks a user and lands on the redirect_uri with a code that exchanges', async () => {
    received.length = 0;
    const page = await browser.newPage();
    try {
      await page.goto(
        authorizeUrl(idp, {
          redirectUri,
          scope: 'openid profile',
          state: 'browser-state',
          nonce: 'browser-nonce',
          codeChallenge: s256(VERIFIER),
          codeChallengeMethod: 'S256',
        }),
      );
      await expect(page.title()).resolves.toContain('Sign in');
      const names = await page.locator('button[name="login_hint"] .name').allTextContents();
      expect(names).toEqual(['Ingrid Fjeld', 'Ola Strand']);
      await Promise.all([
        page.waitForURL((url) => url.href.startsWith(redirectUri)),
        page.getByRole('button', { name: /Ola Strand/ }).click(),
      ]);
      await expect(page.locator('#done').textContent()).resolves.toBe('Signed in');
      const landed = new URL(page.url());
      expect(landed.searchParams.get('state')).toBe('browser-state');
      expect(landed.searchParams.get('iss')).toBe(idp.issuer);
      expect(received).toHaveLength(1);
      const tokens = await exchangeCode(idp, landed.searchParams.get('code') as string, {
        redirectUri,
        extra: { code_verifier: VERIFIER },
      });
      expect(tokens.status, tokens.text).toBe(200);
      const id = await verifyToken(idp, tokens.json.id_token as string, 'teller-web');
      expect(id.claims).toMatchObject({
        preferred_username: 'ola',
        name: 'Ola Strand',
        nonce: 'browser-nonce',
      });
    } finally {
      await page.close();
    }
  });

  it('response_mode=form_post: the auto-submitting form posts the code to the app', async () => {
    received.length = 0;
    const page = await browser.newPage();
    try {
      await page.goto(authorizeUrl(idp, { redirectUri, responseMode: 'form_post', state: 'fp-state' }));
      await Promise.all([
        page.waitForURL(redirectUri),
        page.getByRole('button', { name: /Ingrid Fjeld/ }).click(),
      ]);
      await expect(page.locator('#done').textContent()).resolves.toBe('Signed in');
      expect(received).toHaveLength(1);
      expect(received[0]?.method).toBe('POST');
      expect(received[0]?.params.get('state')).toBe('fp-state');
      const tokens = await exchangeCode(idp, received[0]?.params.get('code') as string, { redirectUri });
      expect(tokens.status, tokens.text).toBe(200);
    } finally {
      await page.close();
    }
  });
});
