// The inspector page /mock/ui in headless Chromium, clicked through: sessions, clock, faults, keys, the live
// journal, the token decoder's verdicts, escaped output, and the QA token of PRODUCT.md §11.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FixturesInput } from '../../src/fixtures/schema.js';
import { useIdp, Y2030 } from '../helpers/server.js';
import { skipBrowser, useChromium } from './harness.js';

const FIXTURES: FixturesInput = {
  realm: 'bench',
  clients: {
    desk: {
      secret: 'desk-secret',
      redirectUris: ['http://desk.test/cb'],
      grants: ['authorization_code', 'refresh_token'],
    },
    job: { secret: 'job-secret', grants: ['client_credentials'] },
  },
  users: {
    kari: { claims: { name: 'Kari Nordmann' } },
    '<i>evil</i>': { claims: { name: '<img src=x onerror="window.pwned=1">' } },
  },
};

async function json(url: string, init: RequestInit = {}): Promise<Record<string, unknown>> {
  return (await (await fetch(url, init)).json()) as Record<string, unknown>;
}

/** Waits until `check` passes (the page refreshes itself every second). */
async function eventually(check: () => Promise<void>, timeoutMs = 8000): Promise<void> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (performance.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

describe.skipIf(skipBrowser)('the inspector page', () => {
  const browser = useChromium();
  const idp = useIdp({ fixtures: FIXTURES, clock: Y2030, frozen: true });
  let page: Page;
  const mock = (path: string): string => `${idp.issuer}/mock${path}`;

  beforeAll(async () => {
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(mock('/ui'));
  });

  it('is a plain page with the security headers and a hashed script', async () => {
    const response = await fetch(mock('/ui'));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('content-security-policy')).toMatch(
      /script-src 'sha256-[^']+'; connect-src 'self'/,
    );
    expect(await response.text()).not.toMatch(/<script src=|https?:\/\/cdn/);
  });

  it('lists sessions and ends one; user names are shown as text, never as HTML', async () => {
    await idp.token({ client: 'desk', user: 'kari' });
    await idp.token({ client: 'desk', user: '<i>evil</i>' });
    await eventually(async () => expect(await page.locator('#sessions tr').count()).toBe(2));
    expect(await page.locator('#sessions i').count()).toBe(0);
    await expect(page.locator('#sessions').textContent()).resolves.toContain('<i>evil</i>');
    const kari = page.locator('#sessions tr', { hasText: 'kari' });
    const id = (await kari.locator('td').first().textContent()) ?? '';
    await kari.getByRole('button', { name: 'End' }).click();
    await eventually(async () => expect(await page.locator('#sessions tr').count()).toBe(1));
    const { sessions } = (await json(mock('/sessions'))) as { sessions: { id: string }[] };
    expect(sessions.map((s) => s.id)).not.toContain(id);
    expect(await page.evaluate<unknown>('window.pwned')).toBeUndefined();
  });

  it('shows sessions a page at a time: the first 200, then "Show more" adds the rest', async () => {
    // One session is left by the test above; 205 more minted ones make 206.
    for (let i = 0; i < 205; i++) {
      const res = await fetch(mock('/tokens'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'access', client: 'desk', user: 'kari' }),
      });
      expect(res.status).toBe(200);
    }
    await eventually(async () => expect(await page.textContent('#sessions-count')).toBe('200+'));
    expect(await page.locator('#sessions tr').count()).toBe(200);
    await page.click('#sessions-more');
    await eventually(async () => expect(await page.textContent('#sessions-count')).toBe('206'));
    expect(await page.locator('#sessions tr').count()).toBe(206);
    expect(await page.isVisible('#sessions-more')).toBe(false);
    await fetch(mock('/sessions'), { method: 'DELETE' });
    await eventually(async () => expect(await page.textContent('#sessions-count')).toBe('0'));
  });

  it('sets, advances and releases the clock', async () => {
    await page.fill('#clock-to', '2031-05-06T07:08:09Z');
    await page.check('#clock-freeze');
    await page.click('#clock-set button');
    await eventually(async () =>
      expect(await page.textContent('#clock-now')).toBe('2031-05-06T07:08:09.000Z'),
    );
    await page.fill('#clock-seconds', '51');
    await page.click('#clock-advance button');
    await eventually(async () =>
      expect(await page.textContent('#clock-now')).toBe('2031-05-06T07:09:00.000Z'),
    );
    expect(await json(mock('/clock'))).toMatchObject({ epoch: 1935817740, frozen: true });
    await page.click('#clock-real');
    await eventually(async () => expect(await page.textContent('#clock-frozen')).toBe('running'));
    await fetch(mock('/clock'), { method: 'PUT', body: JSON.stringify({ now: Y2030, frozen: true }) });
  });

  it("a clock the server refuses says why inside the clock panel, not at the page's top", async () => {
    await page.fill('#clock-to', 'yesterday');
    await page.click('#clock-set button');
    const clockError = page.locator('section:has(#clock-set) .section-error');
    await eventually(async () =>
      expect(await clockError.textContent()).toMatch(/Invalid clock setting: now/),
    );
    expect(await page.textContent('#error')).toBe('');
    await page.fill('#clock-to', '');
    await page.click('#clock-real');
    await eventually(async () => expect(await clockError.textContent()).toBe(''));
    await fetch(mock('/clock'), { method: 'PUT', body: JSON.stringify({ now: Y2030, frozen: true }) });
  });

  it('adds and clears faults', async () => {
    await page.selectOption('#fault-endpoint', 'introspect');
    await page.fill('#fault-status', '502');
    await page.fill('#fault-count', '2');
    await page.click('#fault-add button');
    await eventually(async () => expect(await page.locator('#faults tr').count()).toBe(1));
    expect(await json(mock('/faults'))).toMatchObject({
      faults: [{ endpoint: 'introspect', status: 502, remaining: 2 }],
    });
    await page.click('#faults-clear');
    await eventually(async () => expect(await page.locator('#faults tr').count()).toBe(0));
  });

  it('rotates the keys', async () => {
    await page.click('#keys-rotate');
    await eventually(async () => expect(await page.locator('#keys li').count()).toBe(2));
    expect(((await json(mock('/keys'))) as { keys: string[] }).keys).toHaveLength(2);
  });

  it('shows the journal live, newest first', async () => {
    await fetch(`${idp.endpoints.token}`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: 'job',
        client_secret: 'wrong',
      }),
    });
    await eventually(async () => {
      const first = page.locator('#journal tr').first();
      await expect(first.textContent()).resolves.toMatch(/POST.*token.*401.*job.*client_credentials/);
    });
  });

  it("shows each request's time with the mock clock's date", async () => {
    await fetch(idp.endpoints.discovery);
    await eventually(async () =>
      expect(await page.locator('#journal tr td').first().textContent()).toMatch(
        /^2030-01-01 00:00:00\.000$/,
      ),
    );
  });

  // The page asks for the newest 200 records only (?limit=200), not the whole journal every second, and
  // says how many the journal holds.
  it('shows the newest 200 records of a longer journal, and how many it holds', async () => {
    await Promise.all(Array.from({ length: 210 }, () => fetch(idp.endpoints.discovery)));
    const held = ((await json(mock('/requests?limit=1'))) as { held: number }).held;
    expect(held).toBeGreaterThanOrEqual(210);
    await eventually(async () => expect(await page.textContent('#journal-count')).toBe(String(held)));
    expect(await page.locator('#journal tr').count()).toBe(200);
  });

  describe('the token decoder says whether this realm accepts a token, and why not', () => {
    const decode = async (token: string): Promise<string> => {
      await page.fill('#token', token);
      await page.click('#decode button');
      await eventually(async () => expect(await page.textContent('#verdict')).not.toBe(''));
      const verdict = (await page.textContent('#verdict')) ?? '';
      await page.evaluate('document.getElementById("verdict").textContent = ""');
      return verdict;
    };
    const minted = async (request: Record<string, unknown>): Promise<string> =>
      (await idp.mint({ type: 'access', client: 'desk', user: 'kari', ...request })).token;

    it.each<[string, () => Promise<string>, RegExp]>([
      ['an active token', () => minted({}), /^Accepted: an active access token of this realm$/],
      [
        'an ES256 token of version 3',
        () => minted({ apiVersion: 3 }),
        /^Accepted: an active access token of this realm \(api_ver 3, ES256\)$/,
      ],
      [
        'an ES256 token with a bad signature',
        () => minted({ apiVersion: 3, signature: 'invalid' }),
        /^Refused: bad signature/,
      ],
      ['an expired one', () => minted({ expiresIn: -90 }), /^Refused: expired 90 s ago by the mock clock/],
      ['a not yet valid one', () => minted({ notBefore: '+120' }), /^Refused: not valid for another 120 s/],
      ['an unknown key', () => minted({ signature: 'unknown-key' }), /^Refused: unknown kid/],
      ['a bad signature', () => minted({ signature: 'invalid' }), /^Refused: bad signature/],
      [
        'a foreign issuer',
        () => minted({ claims: { iss: 'http://other.test/realms/x' } }),
        /^Refused: foreign issuer "http:\/\/other\.test\/realms\/x"/,
      ],
      ['not a JWT', async () => 'hello.world', /^Refused: not a JWT/],
      [
        'a megabyte of garbage',
        async () => 'x'.repeat(1_000_000),
        /^Refused: not a token of this realm: 1000000 characters/,
      ],
    ])('%s', async (_name, token, verdict) => {
      expect(await decode(await token())).toMatch(verdict);
    });

    it('a token whose session ended', async () => {
      const token = (await idp.token({ client: 'desk', user: 'kari' })).access_token;
      await fetch(mock('/sessions'), { method: 'DELETE' });
      expect(await decode(token)).toMatch(/^Refused: its session has ended/);
      await expect(page.textContent('#token-claims')).resolves.toContain('"azp": "desk"');
    });
  });
});

describe.skipIf(skipBrowser)('the inspector on a phone (390 x 844)', () => {
  const browser = useChromium();
  const idp = useIdp({ fixtures: FIXTURES, clock: Y2030, frozen: true });

  it('keeps a session id on one line, wraps the decoded kid, and scrolls no wider than the screen', async () => {
    await idp.token({ client: 'desk', user: 'kari' });
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      await page.goto(`${idp.issuer}/mock/ui`);
      const id = page.locator('#sessions tr td').first();
      await eventually(async () => expect(await id.textContent()).toMatch(/^[0-9a-f-]{36}$/));
      // One line box for the id's text (it wrapped one character per line on a phone).
      const lines = await page.evaluate<number>(
        '(() => { const r = document.createRange(); r.selectNodeContents(document.querySelector("#sessions td")); return r.getClientRects().length; })()',
      );
      expect(lines).toBe(1);
      await page.fill('#token', (await idp.mint({ type: 'access', client: 'desk', user: 'kari' })).token);
      await page.click('#decode button');
      await eventually(async () => expect(await page.textContent('#token-header')).toContain('"kid"'));
      const header = await page.locator('#token-header').evaluate((el) => [el.scrollWidth, el.clientWidth]);
      expect(header[0]).toBeLessThanOrEqual(header[1] ?? 0);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    } finally {
      await page.close();
    }
  });
});

describe.skipIf(skipBrowser)('the inspector with a QA token', () => {
  const browser = useChromium();
  const idp = useIdp({ fixtures: FIXTURES, qaToken: 'qa-token-7' });

  it('asks for the token, then every call carries it', async () => {
    await idp.token({ client: 'job' });
    const page = await browser.newPage();
    await page.goto(`${idp.issuer}/mock/ui`);
    await eventually(async () => expect(await page.isVisible('#qa-token')).toBe(true));
    await expect(page.textContent('#error')).resolves.toMatch(/QA token/);
    await page.fill('#qa-token', 'qa-token-7');
    await page.click('#auth button');
    await eventually(async () => expect(await page.locator('#sessions tr').count()).toBe(1));
    expect(await page.isVisible('#qa-token')).toBe(false);
    expect((await fetch(`${idp.issuer}/mock/sessions`)).status).toBe(401);
  });
});
