// A Keycloak realm's login page in Chromium, driven as suites written against Keycloak drive Keycloak's: fill
// #username and #password, click #kc-login, land with a code that openid-client exchanges; a wrong password
// shows #input-error. The page with its form fits a phone and a desktop (screenshots).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as client from 'openid-client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeycloakRealmInput } from '../../src/fixtures/keycloak/schema.js';
import { clientConfig } from '../helpers/admin.js';
import { useIdp } from '../helpers/server.js';
import { skipBrowser, useAppServer, useChromium, withPage } from './harness.js';

const CLIENT = 'harbor-web';
/** The phone and desktop sizes every page is looked at in. */
const SCREENS = [
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
];
const SECRET = 'harbor-secret';
/** MOCK_IDP_SCREENSHOTS keeps the screenshots for a person to look at; else a temporary directory, removed. */
const KEEP_SHOTS = process.env['MOCK_IDP_SCREENSHOTS'];
const SHOTS = KEEP_SHOTS ?? mkdtempSync(join(tmpdir(), 'mock-idp-keycloak-login-'));
afterAll(() => {
  if (KEEP_SHOTS === undefined) rmSync(SHOTS, { recursive: true, force: true });
});

describe.skipIf(skipBrowser)("a Keycloak realm's login form in Chromium", () => {
  const browser = useChromium();
  const app = useAppServer();
  let redirectUri: string;
  beforeAll(() => {
    redirectUri = `${app.origin}/cb`;
  });
  const idp = useIdp(() => ({
    fixtures: {
      realm: 'harbor',
      displayName: 'Harbor',
      users: [
        {
          username: 'kari',
          email: 'kari@harbor.test',
          firstName: 'Kari',
          lastName: 'Nordmann',
          enabled: true,
          credentials: [{ type: 'password', value: 'kari-pw' }],
        },
        { username: 'per', enabled: true, credentials: [{ type: 'password', value: 'per-pw' }] },
        // One user with a temporary password for each screen size: each test chooses a new one.
        ...[390, 1280].map((width) => ({
          username: `tove-${width}`,
          enabled: true,
          credentials: [{ type: 'password', value: 'tove-temp', temporary: true }],
        })),
        // And one with every required action the login form performs.
        ...[390, 1280].map((width) => ({
          username: `anne-${width}`,
          email: `anne-${width}@harbor.test`,
          firstName: 'Anne',
          enabled: true,
          credentials: [{ type: 'password', value: 'anne-temp' }],
          requiredActions: ['VERIFY_EMAIL', 'UPDATE_PROFILE', 'TERMS_AND_CONDITIONS', 'UPDATE_PASSWORD'],
        })),
      ],
      clients: [
        { clientId: CLIENT, secret: SECRET, redirectUris: [redirectUri] },
        {
          clientId: 'harbor-tv',
          publicClient: true,
          attributes: { 'oauth2.device.authorization.grant.enabled': 'true' },
        },
      ],
    } satisfies KeycloakRealmInput,
  }));

  let config: client.Configuration;
  beforeAll(async () => {
    config = await clientConfig(idp, 'harbor', CLIENT, SECRET);
  });

  /** openid-client's authorize URL (PKCE, state, nonce) and what the code exchange checks. */
  async function start(): Promise<{ url: URL; verifier: string; state: string; nonce: string }> {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid profile',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url, verifier, state, nonce };
  }

  async function fillAndSubmit(page: Page, username: string, password: string): Promise<void> {
    await page.fill('#username', username);
    await page.fill('#password', password);
    await page.click('#kc-login');
  }

  /** The page is no wider than the screen; its screenshot is written for a person to look at. */
  async function fitsAndShoot(page: Page, width: number, name: string): Promise<void> {
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
    mkdirSync(SHOTS, { recursive: true });
    const file = join(SHOTS, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    console.info(`screenshot: ${file}`);
  }

  it.each([
    { typed: 'kari', as: 'kari' },
    { typed: 'kari@harbor.test', as: 'kari' },
  ])('$typed: #username, #password, #kc-login → a code openid-client exchanges', async ({ typed, as }) => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const flow = await start();
      await page.goto(flow.url.href);
      await expect(page.title()).resolves.toBe('Sign in to Harbor');
      await fillAndSubmit(page, typed, 'kari-pw');
      await page.locator('#landed').waitFor();
      const tokens = await client.authorizationCodeGrant(config, new URL(page.url()), {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      expect(tokens.claims()?.['preferred_username']).toBe(as);
      const cookies = (await context.cookies(`${idp.issuer}/`)).map((c) => c.name);
      expect(cookies).toContain('KEYCLOAK_IDENTITY');
    } finally {
      await context.close();
    }
  });

  it('a wrong password: the form again with #input-error, then the right one signs in', async () => {
    await withPage(browser, {}, async (page) => {
      const flow = await start();
      await page.goto(flow.url.href);
      await fillAndSubmit(page, 'kari', 'wrong');
      await expect(page.locator('#input-error').innerText()).resolves.toBe('Invalid username or password.');
      await expect(page.inputValue('#username')).resolves.toBe('kari');
      await expect(page.inputValue('#password')).resolves.toBe('');
      await fillAndSubmit(page, 'kari', 'kari-pw');
      await page.locator('#landed').waitFor();
      const landed = new URL(page.url());
      expect(landed.searchParams.get('state')).toBe(flow.state);
      expect(landed.searchParams.get('code')).toBeTruthy();
    });
  });

  it('the user buttons below the form still sign in', async () => {
    const page = await browser.newPage();
    try {
      await page.goto((await start()).url.href);
      await page.locator('button[name="login_hint"][value="per"]').click();
      await page.locator('#landed').waitFor();
      expect(new URL(page.url()).searchParams.get('code')).toBeTruthy();
    } finally {
      await page.close();
    }
  });

  it.each(SCREENS)(
    'fits $width x $height with a refusal shown; screenshot written',
    async ({ width, height }) => {
      await withPage(browser, { viewport: { width, height } }, async (page) => {
        await page.goto((await start()).url.href);
        await fillAndSubmit(page, 'kari', 'wrong');
        await page.locator('#input-error').waitFor();
        const boxes = [];
        for (const selector of ['#username', '#password', '#input-error', '#kc-login', 'ul.users'])
          boxes.push(await page.locator(selector).boundingBox());
        for (const box of boxes) expect((box?.x ?? 0) + (box?.width ?? Infinity)).toBeLessThanOrEqual(width);
        // Top to bottom, none over the next: the fields, the refusal, the button, then the user list.
        const tops = boxes.map((b) => b?.y ?? 0);
        const bottoms = boxes.map((b) => (b?.y ?? 0) + (b?.height ?? 0));
        for (let i = 1; i < boxes.length; i++)
          expect(tops[i]).toBeGreaterThanOrEqual(bottoms[i - 1] ?? Infinity);
        await fitsAndShoot(page, width, `keycloak-login-${width}x${height}`);
      });
    },
  );

  it.each(SCREENS)(
    'the device page at $width x $height: the code, then the form signs in; the device gets tokens',
    async ({ width, height }) => {
      const context = await browser.newContext({ viewport: { width, height } });
      try {
        const started = await fetch(`${idp.issuer}/protocol/openid-connect/auth/device`, {
          method: 'POST',
          body: new URLSearchParams({ client_id: 'harbor-tv', scope: 'openid' }),
        });
        const device = (await started.json()) as { device_code: string; verification_uri_complete: string };
        const page = await context.newPage();
        await page.goto(device.verification_uri_complete);
        await page.getByRole('button', { name: 'Continue' }).click();
        await fillAndSubmit(page, 'kari', 'wrong');
        await expect(page.locator('#input-error').innerText()).resolves.toBe('Invalid username or password.');
        await fitsAndShoot(page, width, `keycloak-device-${width}x${height}`);
        await fillAndSubmit(page, 'kari@harbor.test', 'kari-pw');
        await page.locator('#device-done').waitFor();
        const tokens = await fetch(`${idp.issuer}/protocol/openid-connect/token`, {
          method: 'POST',
          body: new URLSearchParams({
            grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
            device_code: device.device_code,
            client_id: 'harbor-tv',
          }),
        });
        expect(tokens.status).toBe(200);
      } finally {
        await context.close();
      }
    },
  );

  it.each(SCREENS)(
    'a temporary password at $width x $height: Update password (#password-new, #password-confirm), then a code',
    async ({ width, height }) => {
      await withPage(browser, { viewport: { width, height } }, async (page) => {
        const flow = await start();
        await page.goto(flow.url.href);
        await fillAndSubmit(page, `tove-${width}`, 'tove-temp');
        await page.locator('#kc-passwd-update-form').waitFor();
        await fitsAndShoot(page, width, `keycloak-update-password-asked-${width}x${height}`);
        await page.fill('#password-new', `new-${width}`);
        await page.fill('#password-confirm', 'something else');
        await page.click('input[type="submit"]');
        await expect(page.locator('#input-error-password-confirm').innerText()).resolves.toBe(
          "Passwords don't match.",
        );
        await fitsAndShoot(page, width, `keycloak-update-password-${width}x${height}`);
        await page.fill('#password-new', `new-${width}`);
        await page.fill('#password-confirm', `new-${width}`);
        await page.click('input[type="submit"]');
        await page.locator('#landed').waitFor();
        const tokens = await client.authorizationCodeGrant(config, new URL(page.url()), {
          pkceCodeVerifier: flow.verifier,
          expectedState: flow.state,
          expectedNonce: flow.nonce,
          idTokenExpected: true,
        });
        expect(tokens.claims()?.['preferred_username']).toBe(`tove-${width}`);
      });
    },
  );

  it.each(SCREENS)(
    'required actions at $width x $height: Terms, Update password, Update Account Information, Email verification, then a code',
    async ({ width, height }) => {
      await withPage(browser, { viewport: { width, height } }, async (page) => {
        const flow = await start();
        await page.goto(flow.url.href);
        await fillAndSubmit(page, `anne-${width}`, 'anne-temp');
        await expect(page.locator('#kc-page-title').innerText()).resolves.toBe('Terms and Conditions');
        await fitsAndShoot(page, width, `keycloak-terms-${width}x${height}`);
        await page.click('#kc-accept');
        await page.locator('#kc-passwd-update-form').waitFor();
        await page.fill('#password-new', `anne-new-${width}`);
        await page.fill('#password-confirm', `anne-new-${width}`);
        await page.click('input[type="submit"]');
        await page.locator('#kc-update-profile-form').waitFor();
        await expect(page.inputValue('#firstName')).resolves.toBe('Anne');
        await fitsAndShoot(page, width, `keycloak-update-profile-asked-${width}x${height}`);
        await page.fill('#email', 'not an email');
        await page.click('#kc-submit');
        await expect(page.locator('#input-error-email').innerText()).resolves.toBe('Invalid email address.');
        await expect(page.locator('#input-error-lastName').innerText()).resolves.toBe(
          'Please specify this field.',
        );
        await fitsAndShoot(page, width, `keycloak-update-profile-${width}x${height}`);
        await page.fill('#email', `anne.${width}.atararatherlongaddressfor@harborandsonsandfriends.test`);
        await page.fill('#lastName', 'Andersen');
        await page.click('#kc-submit');
        await page.locator('#kc-verify-email-form').waitFor();
        await fitsAndShoot(page, width, `keycloak-verify-email-${width}x${height}`);
        await page.click('#mock-verify-email');
        await page.locator('#landed').waitFor();
        const tokens = await client.authorizationCodeGrant(config, new URL(page.url()), {
          pkceCodeVerifier: flow.verifier,
          expectedState: flow.state,
          expectedNonce: flow.nonce,
          idTokenExpected: true,
        });
        expect(tokens.claims()).toMatchObject({
          preferred_username: `anne-${width}`,
          email: `anne.${width}.atararatherlongaddressfor@harborandsonsandfriends.test`,
          email_verified: true,
          family_name: 'Andersen',
        });
      });
    },
  );
});
