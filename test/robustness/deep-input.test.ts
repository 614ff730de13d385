// Deeply nested input at every JSON entry point: a 4xx at once, and the server keeps answering. Each body is
// written out as text (JSON.stringify itself gives up long before these depths).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { basic, get, postForm, readAnswer, type Answer } from '../helpers/http.js';
import { useIdp, type TestIdp } from '../helpers/server.js';

const b64url = (text: string): string => Buffer.from(text).toString('base64url');
const arrays = (depth: number, leaf = '1'): string => `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;
const objects = (depth: number, leaf = '1'): string => `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;
/** A JWT whose header and payload are `header` and `payload` as given, with a junk signature. */
const jwt = (header: string, payload: string): string => `${b64url(header)}.${b64url(payload)}.c2ln`;

async function send(method: string, url: string, body: string, type = 'application/json'): Promise<Answer> {
  return readAnswer(
    await fetch(url, { method, headers: { 'content-type': type }, body, redirect: 'manual' }),
  );
}

type Entry = [string, (idp: TestIdp, deep: string) => Promise<Answer>];
/** Every place a client or tester can hand mock-idp a JSON text, with `deep` put where it can nest. */
const ENTRIES: Entry[] = [
  ['POST /mock/tokens, the whole body', (idp, deep) => send('POST', `${idp.issuer}/mock/tokens`, deep)],
  [
    'POST /mock/tokens, a claim',
    (idp, deep) =>
      send(
        'POST',
        `${idp.issuer}/mock/tokens`,
        `{"type":"access","client":"ledger-sync","claims":{"d":${deep}}}`,
      ),
  ],
  ['POST /mock/clock', (idp, deep) => send('POST', `${idp.issuer}/mock/clock`, `{"seconds":${deep}}`)],
  ['POST /mock/faults', (idp, deep) => send('POST', `${idp.issuer}/mock/faults`, `{"endpoint":${deep}}`)],
  [
    'POST /mock/tokens/verify, the body',
    (idp, deep) => send('POST', `${idp.issuer}/mock/tokens/verify`, deep),
  ],
  [
    'POST /mock/tokens/verify, a token payload',
    (idp, deep) =>
      send(
        'POST',
        `${idp.issuer}/mock/tokens/verify`,
        JSON.stringify({ token: jwt('{"alg":"RS256"}', deep) }),
      ),
  ],
  [
    'POST /mock/tokens/verify, a token header',
    (idp, deep) =>
      send('POST', `${idp.issuer}/mock/tokens/verify`, JSON.stringify({ token: jwt(`{"d":${deep}}`, '{}') })),
  ],
  [
    'PUT /mock/fixtures, a flow collection in YAML',
    (idp, deep) =>
      send(
        'PUT',
        `${idp.issuer}/mock/fixtures`,
        `clients:\n  c: { secret: s }\nusers:\n  u: { claims: { d: ${deep} } }\n`,
        'application/yaml',
      ),
  ],
  [
    'dynamic registration',
    (idp, deep) => send('POST', idp.endpoints.registration, `{"redirect_uris":${deep}}`),
  ],
  [
    'userinfo, a bearer token payload',
    (idp, deep) => get(idp.endpoints.userinfo, { authorization: `Bearer ${jwt('{"alg":"RS256"}', deep)}` }),
  ],
  [
    'introspection, a token payload',
    (idp, deep) =>
      postForm(
        idp.endpoints.introspect,
        { token: jwt('{"alg":"RS256"}', deep) },
        basic('ledger-sync', 'sync:pa ss+w%rd/ø'),
      ),
  ],
  [
    'a client assertion',
    (idp, deep) =>
      postForm(idp.endpoints.token, {
        grant_type: 'client_credentials',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: jwt('{"alg":"RS256"}', deep),
      }),
  ],
  [
    'a request object',
    (idp, deep) =>
      get(
        `${idp.endpoints.auth}?${new URLSearchParams({
          client_id: 'teller-web',
          response_type: 'code',
          request: jwt('{"alg":"none"}', deep),
        })}`,
      ),
  ],
];

describe('input nested 100,000 levels deep is refused at once, and the server stays up', () => {
  const idp = useIdp();

  it.each(
    ENTRIES.flatMap(([what, send]) =>
      [100_000, 20_000].flatMap((depth): [string, number, string, Entry[1]][] => [
        [what, depth, 'arrays', send],
        [what, depth, 'objects', send],
      ]),
    ),
  )('%s, %i levels of %s', async (what, depth, shape, sendDeep) => {
    const answer = await sendDeep(idp, shape === 'arrays' ? arrays(depth) : objects(depth));
    if (what.startsWith('POST /mock/tokens/verify, a token')) {
      // The decoder answers every text with a verdict.
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({ valid: false, header: null, claims: null });
    } else if (what.startsWith('introspection') && answer.status === 200) {
      // A form small enough to read: the token is inactive.
      expect(answer.json).toEqual({ active: false });
    } else {
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
    }
    expect((await get(`${idp.url}/health`)).status).toBe(200);
  });

  it.each([3_000, 100])(
    'PUT /mock/fixtures, %i block levels of YAML: refused with the line',
    async (depth) => {
      const text = `clients:\n${Array.from({ length: depth }, (_, i) => `${' '.repeat(i + 1)}k:`).join('\n')}\n`;
      const answer = await send('PUT', `${idp.issuer}/mock/fixtures`, text, 'application/yaml');
      const problem =
        'body:73:1 nested deeper than 72 levels of lists and mappings: fixtures never need that many';
      expect(answer.json).toEqual({
        error: 'invalid_request',
        error_description: `Fixtures not replaced: ${problem}`,
        problems: [problem],
      });
      expect((await get(`${idp.url}/health`)).status).toBe(200);
    },
  );

  it('the JSON body answer names the limit', async () => {
    const answer = await send('POST', `${idp.issuer}/mock/tokens`, arrays(100_000));
    expect(answer.json).toEqual({
      error: 'invalid_request',
      error_description: 'The JSON body nests deeper than 72 levels of arrays and objects',
    });
  });

  it('a body at the limit is still read (and refused for what it says, not for its depth)', async () => {
    const answer = await send('POST', `${idp.issuer}/mock/tokens`, arrays(72));
    expect(answer.status).toBe(400);
    expect(String(answer.json['error_description'])).not.toContain('nests deeper');
  });

  it('a "__proto__" member 60 levels down is named with its whole path', async () => {
    const answer = await send(
      'POST',
      `${idp.issuer}/mock/clock`,
      `{"seconds":${objects(60, '{"__proto__":1}')}}`,
    );
    expect(answer.status).toBe(400);
    expect(String(answer.json['error_description'])).toContain(`seconds.${'a.'.repeat(60)}__proto__`);
  });

  it('any depth up to 200,000 at any entry point: a 4xx, and /health answers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: ENTRIES.length - 1 }),
        fc.integer({ min: 1, max: 200_000 }),
        fc.boolean(),
        async (entry, depth, useArrays) => {
          const [, sendDeep] = ENTRIES[entry] as Entry;
          const answer = await sendDeep(idp, useArrays ? arrays(depth) : objects(depth));
          expect(answer.status).toBeLessThan(500);
          expect((await get(`${idp.url}/health`)).status).toBe(200);
        },
      ),
      { numRuns: 40, seed: 20261126 },
    );
  });
});
