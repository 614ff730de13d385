// The login page in Chromium: every user with the facts a tester picks by, Cancel answering access_denied in the
// requested response mode, a readable layout on a phone and a desktop (screenshots), and the provider's
// login_hint forms.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeRedirect, authorizeUrl, exchangeCode } from '../helpers/flows.js';
import { basic } from '../helpers/http.js';
import { verifyToken } from '../helpers/jwt.js';
import { useIdp } from '../helpers/server.js';
import {
  BROWSER_USERS,
  listSessions,
  reachLoginPage,
  skipBrowser,
  useAppServer,
  useChromium,
  withPage,
} from './harness.js';

const CLIENT = 'desk';
const SECRET = 'desk-secret';
/**
 * Where the screenshots go: MOCK_IDP_SCREENSHOTS keeps them for a person to look at; otherwise a
 * temporary directory of this run, removed afterwards.
 */
const KEEP_SHOTS = process.env['MOCK_IDP_SCREENSHOTS'];
const SHOTS = KEEP_SHOTS ?? mkdtempSync(join(tmpdir(), 'mock-idp-login-page-'));
afterAll(() => {
  if (KEEP_SHOTS === undefined) rmSync(SHOTS, { recursive: true, force: true });
});

const USERS = { ...BROWSER_USERS, guest: {} };

/** What each user's button must show: name, username, idp_altsub, masked national id, acr. */
const SHOWN: { username: string; facts: string[]; hidden: string[] }[] = [
  {
    username: 'astrid',
    facts: ['Astrid Berg', 'astrid', '9578-6000-4-135790', '240688*****', 'urn:idp:bid;LOA=4'],
    hidden: [BROWSER_USERS.astrid.claims.nnin_altsub],
  },
  {
    username: 'jonas',
    facts: ['Jonas Lie', 'jonas', '9578-6000-4-975310', '051190*****', 'urn:idp:minid;LOA=3'],
    hidden: [BROWSER_USERS.jonas.claims.nnin_altsub],
  },
  { username: 'guest', facts: ['guest'], hidden: [] },
];

describe.skipIf(skipBrowser)('the login page in Chromium', () => {
  const browser = useChromium();
  const app = useAppServer();
  let redirectUri: string;
  beforeAll(() => {
    redirectUri = `${app.origin}/cb`;
  });
  const idp = useIdp(() => ({
    fixtures: {
      realm: 'pier',
      clients: {
        [CLIENT]: {
          secret: SECRET,
          redirectUris: [redirectUri],
          grants: ['authorization_code', 'refresh_token'],
          scopes: ['openid', 'profile', 'nnin_altsub'],
          nninEligible: true,
        },
      },
      users: USERS,
    },
  }));

  const loginUrl = (extra: { state?: string; responseMode?: string } = {}): string =>
    authorizeUrl(idp, { client: CLIENT, redirectUri, scope: 'openid profile', ...extra });

  async function openLoginPage(page: Page, url = loginUrl()): Promise<void> {
    await page.goto(url);
    await reachLoginPage(page, idp);
  }

  it('lists every user with name, username, idp_altsub, masked national id and acr', async () => {
    const page = await browser.newPage();
    try {
      await openLoginPage(page);
      const buttons = await page.locator('form button[name="login_hint"]').all();
      const values = await Promise.all(buttons.map((b) => b.getAttribute('value')));
      expect(values).toEqual(Object.keys(USERS));
      for (const { username, facts, hidden } of SHOWN) {
        const text = (await page.locator(`button[name="login_hint"][value="${username}"]`).innerText())
          .replace(/\s+/g, ' ')
          .trim();
        for (const fact of facts) expect(text, `${username}'s button`).toContain(fact);
        const html = await page.content();
        for (const secret of hidden) expect(html).not.toContain(secret);
      }
      await expect(page.locator('button[name="cancel"][form="login"]').count()).resolves.toBe(1);
    } finally {
      await page.close();
    }
  });

  it.each([
    { responseMode: 'query', where: 'query' },
    { responseMode: 'fragment', where: 'fragment' },
    { responseMode: 'form_post', where: 'posted form' },
  ])(
    'Cancel returns error=access_denied with the state in the $where (response_mode=$responseMode)',
    async ({ responseMode }) => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        const before = (await listSessions(idp)).length;
        await openLoginPage(page, loginUrl({ state: `cancel-${responseMode}`, responseMode }));
        await page.locator('button[name="cancel"]').click();
        await page.locator('#landed').waitFor();

        const landed = new URL(page.url());
        expect(`${landed.origin}${landed.pathname}`).toBe(redirectUri);
        const params =
          responseMode === 'form_post'
            ? new URLSearchParams((await page.locator('#posted').textContent()) ?? '')
            : responseMode === 'fragment'
              ? new URLSearchParams(landed.hash.slice(1))
              : landed.searchParams;
        expect(params.get('error')).toBe('access_denied');
        expect(params.get('state')).toBe(`cancel-${responseMode}`);
        expect(params.get('code')).toBeNull();
        expect((await listSessions(idp)).length).toBe(before);
        expect((await context.cookies(`${idp.issuer}/`)).map((c) => c.name)).not.toContain(
          'KEYCLOAK_IDENTITY',
        );
      } finally {
        await context.close();
      }
    },
  );

  it.each([
    { size: 'phone', width: 390, height: 844 },
    { size: 'desktop', width: 1280, height: 800 },
  ])(
    'is readable on a $size ($width x $height): no sideways scrolling; screenshot written',
    async ({ size, width, height }) => {
      await withPage(browser, { viewport: { width, height } }, async (page) => {
        await openLoginPage(page);
        const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
        expect(scrollWidth).toBeLessThanOrEqual(width);
        for (const button of await page.locator('button[name="login_hint"], button[name="cancel"]').all()) {
          const box = await button.boundingBox();
          expect(box).not.toBeNull();
          expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(width);
        }

        mkdirSync(SHOTS, { recursive: true });
        const file = join(SHOTS, `login-${size}-${width}x${height}.png`);
        await page.screenshot({ path: file, fullPage: true });
        const png = readFileSync(file);
        expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
        expect(png.readUInt32BE(16)).toBe(width);
        console.info(`login page screenshot (${size}): ${file}`);
      });
    },
  );
});

describe.skipIf(skipBrowser)('the login page with 1,000 people and a named client', () => {
  const browser = useChromium();
  const app = useAppServer();
  let redirectUri: string;
  beforeAll(() => {
    redirectUri = `${app.origin}/cb`;
  });
  const people = Object.fromEntries(
    Array.from({ length: 1000 }, (_, i) => {
      const n = String(i).padStart(4, '0');
      return [`user-${n}`, { claims: { name: `Person ${n}` } }];
    }),
  );
  const idp = useIdp(() => ({
    fixtures: {
      realm: 'crowd',
      clients: {
        [CLIENT]: { name: 'Desk Portal', secret: SECRET, redirectUris: [redirectUri], scopes: ['openid'] },
      },
      users: people,
    },
  }));

  async function open(page: Page): Promise<void> {
    await page.goto(authorizeUrl(idp, { client: CLIENT, redirectUri, scope: 'openid' }));
    await reachLoginPage(page, idp);
  }
  const visible = (page: Page): Promise<number> => page.locator('ul.users > li:visible').count();

  it("shows the client's name with its id in the header, and Cancel above the list", async () => {
    const page = await browser.newPage();
    try {
      await open(page);
      expect((await page.locator('h1').innerText()).replace(/\s+/g, ' ')).toBe(
        `Sign in to Desk Portal ${CLIENT}`,
      );
      const cancel = await page.locator('button[name="cancel"]').boundingBox();
      const list = await page.locator('ul.users').boundingBox();
      expect(cancel?.y ?? Infinity).toBeLessThan(list?.y ?? 0);
    } finally {
      await page.close();
    }
  });

  it.each([
    ['user-0042', 1],
    ['person 004', 11], // 0040–0049 and 0004
    ['PERSON 0999', 1],
    ['nobody', 0],
    ['', 1000],
  ])('the filter box with %j shows %i people', async (text, shown) => {
    const page = await browser.newPage();
    try {
      await open(page);
      await page.locator('#filter').fill(text);
      expect(await visible(page)).toBe(shown);
      expect(await page.locator('#shown').innerText()).toBe(text === '' ? '' : `${shown} of 1000 shown`);
    } finally {
      await page.close();
    }
  });

  it('Enter in the filter box neither signs in nor cancels; the one person left signs in', async () => {
    const page = await browser.newPage();
    try {
      await open(page);
      await page.locator('#filter').fill('user-0007');
      await page.locator('#filter').press('Enter');
      expect(await visible(page)).toBe(1);
      expect(page.url()).toContain('/protocol/openid-connect/auth');
      await page.locator('ul.users > li:visible button').click();
      await page.locator('#landed').waitFor();
      expect(new URL(page.url()).searchParams.get('code')).not.toBeNull();
    } finally {
      await page.close();
    }
  });

  it.each([
    { width: 390, height: 844 },
    { width: 1280, height: 900 },
  ])('fits $width x $height with the filter in use; screenshot written', async ({ width, height }) => {
    await withPage(browser, { viewport: { width, height } }, async (page) => {
      await open(page);
      await page.locator('#filter').fill('person 00');
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
      mkdirSync(SHOTS, { recursive: true });
      const file = join(SHOTS, `login-filter-${width}x${height}.png`);
      await page.screenshot({ path: file, fullPage: false });
      console.info(`login page with a filter, screenshot: ${file}`);
    });
  });
});

describe("login_hint in the provider's forms picks the user without the page", () => {
  const redirectUri = 'http://desk.pier.test/cb';
  const idp = useIdp({
    fixtures: {
      realm: 'pier',
      clients: { [CLIENT]: { secret: SECRET, redirectUris: [redirectUri] } },
      users: USERS,
    },
  });

  it.each([
    { hint: `BID:${BROWSER_USERS.astrid.claims.nnin_altsub}`, username: 'astrid' },
    { hint: `:${BROWSER_USERS.jonas.claims.nnin_altsub}`, username: 'jonas' },
    { hint: 'jonas', username: 'jonas' },
  ])('login_hint=$hint → $username', async ({ hint, username }) => {
    const params = await authorizeRedirect(idp, { client: CLIENT, redirectUri, user: hint });
    const code = params.get('code');
    expect(code, params.toString()).toBeTruthy();
    const tokens = await exchangeCode(idp, code as string, {
      redirectUri,
      authorization: basic(CLIENT, SECRET),
    });
    expect(tokens.status, tokens.text).toBe(200);
    const id = await verifyToken(idp, tokens.json.id_token as string, CLIENT);
    expect(id.claims['preferred_username']).toBe(username);
  });
});
