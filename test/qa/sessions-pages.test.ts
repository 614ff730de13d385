// GET /mock/sessions in pages (?limit=&cursor=) over real HTTP, on the memory store and on a real Redis:
// the unpaginated list as before, bad parameters as precise invalid_request answers, and walks over every
// page that see each session exactly once while sessions are added and ended.
import { beforeAll, describe, expect, it } from 'vitest';
import { BATCH_JOB, DEFAULT_FIXTURES } from '../helpers/bundled.js';
import { call, postForm } from '../helpers/http.js';
import { SKIP_REDIS, useRedis } from '../helpers/redis.js';
import { endpointsOf, useIdp } from '../helpers/server.js';

interface Listed {
  id: string;
  clientId: string;
  sub: string;
  localSub: string;
  subs: Record<string, string>;
}
interface Page {
  sessions: Listed[];
  nextCursor: string | null;
}

const STORES = [
  { name: 'memory', skip: false },
  { name: 'redis', skip: SKIP_REDIS },
] as const;

describe.each(STORES)('GET /mock/sessions pages: $name store', ({ name, skip }) => {
  // Every test below skips with the store, so neither server starts then.
  const redis = name === 'redis' && !skip ? useRedis() : undefined;
  const idp = useIdp(() => ({
    fixtures: DEFAULT_FIXTURES,
    ...(redis !== undefined ? { store: redis.url } : {}),
  }));
  let base: string;
  beforeAll(() => {
    base = idp.issuer;
  });

  /** Opens a session (client_credentials opens one per token) and answers its id. */
  const open = async (): Promise<string> => {
    const answer = await postForm(endpointsOf(base).token, { grant_type: 'client_credentials' }, BATCH_JOB);
    expect(answer.status, answer.text).toBe(200);
    return String(answer.json['sid']);
  };
  const openMany = async (n: number): Promise<string[]> => {
    const ids: string[] = [];
    for (let i = 0; i < n; i += 10)
      ids.push(...(await Promise.all(Array.from({ length: Math.min(10, n - i) }, open))));
    return ids;
  };
  const page = async (query: string) => {
    const answer = await call('GET', `${base}/mock/sessions${query}`);
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    return { body: answer.json as unknown as Page, link: answer.headers.get('link') };
  };
  /** Every page of `limit`, each page's cursor taken from the previous answer; `between` runs between pages. */
  const walk = async (limit: number, between: (pageNo: number) => Promise<void> = async () => {}) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const { body } = await page(`?limit=${limit}${cursor !== null ? `&cursor=${cursor}` : ''}`);
      expect(body.sessions.length).toBeLessThanOrEqual(limit);
      seen.push(...body.sessions.map((s) => s.id));
      cursor = body.nextCursor;
      pages++;
      await between(pages);
    } while (cursor !== null);
    return { seen, pages };
  };

  it.skipIf(skip)('without limit or cursor: every session in the body as before, no cursor', async () => {
    await call('DELETE', `${base}/mock/sessions`);
    const ids = await openMany(3);
    const answer = await call('GET', `${base}/mock/sessions`);
    expect(Object.keys(answer.json)).toEqual(['sessions']);
    expect((answer.json['sessions'] as Listed[]).map((s) => s.id).sort()).toEqual([...ids].sort());
    expect(answer.headers.get('link')).toBeNull();
  });

  it.skipIf(skip).each([1, 7, 25, 1000])(
    'limit=%i: the pages hold every session once, in id order, the last with nextCursor null',
    async (limit) => {
      await call('DELETE', `${base}/mock/sessions`);
      const ids = await openMany(25);
      const { seen, pages } = await walk(limit);
      expect(seen).toEqual([...ids].sort());
      expect(pages).toBe(Math.max(1, Math.ceil(25 / limit)));
    },
  );

  it.skipIf(skip)('a page names the next one in nextCursor and in a Link header', async () => {
    await call('DELETE', `${base}/mock/sessions`);
    await openMany(3);
    const first = await page('?limit=2');
    expect(first.body.sessions).toHaveLength(2);
    expect(first.body.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(first.link).toBe(
      `<${new URL(base).pathname}/mock/sessions?limit=2&cursor=${first.body.nextCursor}>; rel="next"`,
    );
    const next = await call('GET', new URL(/<([^>]+)>/.exec(first.link ?? '')?.[1] ?? '', base).href);
    expect(next.json['nextCursor']).toBeNull();
    expect(next.headers.get('link')).toBeNull();
    // A cursor alone: the default page size (100).
    const rest = await page(`?cursor=${first.body.nextCursor}`);
    expect(rest.body.sessions).toHaveLength(1);
  });

  it.skipIf(skip)(
    'walking while sessions are added and ended: every session present throughout is seen exactly once',
    async () => {
      await call('DELETE', `${base}/mock/sessions`);
      const initial = await openMany(40);
      const ended = new Set<string>();
      const added: string[] = [];
      const { seen } = await walk(6, async () => {
        // Between pages: end one of the initial sessions not yet ended, and open two new ones.
        const victim = initial.find((id) => !ended.has(id) && id !== undefined);
        if (victim !== undefined) {
          ended.add(victim);
          expect((await call('DELETE', `${base}/mock/sessions/${victim}`)).status).toBe(200);
        }
        added.push(...(await openMany(2)));
      });
      expect(new Set(seen).size).toBe(seen.length);
      for (const id of initial.filter((x) => !ended.has(x))) expect(seen).toContain(id);
      for (const id of seen) expect(initial.includes(id) || added.includes(id)).toBe(true);
      expect(seen).toEqual([...seen].sort());
    },
  );

  it.skipIf(skip)('a cursor stays valid when the session it points after has ended', async () => {
    await call('DELETE', `${base}/mock/sessions`);
    const ids = (await openMany(4)).sort();
    const first = await page('?limit=2');
    expect(first.body.sessions.map((s) => s.id)).toEqual(ids.slice(0, 2));
    await call('DELETE', `${base}/mock/sessions/${ids[1]}`);
    const second = await page(`?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.sessions.map((s) => s.id)).toEqual(ids.slice(2));
    expect(second.body.nextCursor).toBeNull();
  });

  it.skipIf(skip).each([
    ['?limit=0', 'Invalid parameter: limit "0" (an integer from 1 to 1000)'],
    ['?limit=1001', 'Invalid parameter: limit "1001" (an integer from 1 to 1000)'],
    ['?limit=-5', 'Invalid parameter: limit "-5" (an integer from 1 to 1000)'],
    ['?limit=2.5', 'Invalid parameter: limit "2.5" (an integer from 1 to 1000)'],
    ['?limit=ten', 'Invalid parameter: limit "ten" (an integer from 1 to 1000)'],
    ['?limit=', 'Invalid parameter: limit "" (an integer from 1 to 1000)'],
    ['?limit=1&limit=2', 'Duplicated parameter: limit'],
    ['?cursor=a&cursor=b', 'Duplicated parameter: cursor'],
    ['?limit=5&cursor=not*a*cursor', 'Invalid parameter: cursor'],
    ['?cursor=', 'Invalid parameter: cursor'],
    // Base64url of a text this server never makes (no version prefix).
    [`?cursor=${Buffer.from('some-session-id').toString('base64url')}`, 'Invalid parameter: cursor'],
  ])('%s → 400 invalid_request: %s', async (query, description) => {
    const answer = await call('GET', `${base}/mock/sessions${query}`);
    expect(answer.status).toBe(400);
    expect(answer.json['error']).toBe('invalid_request');
    expect(String(answer.json['error_description'])).toContain(description);
  });
});
