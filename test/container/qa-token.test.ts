// MockIdpContainer.withQaToken() against the real image: the QA API refuses a request
// without the token (401), and the container's own QA helpers (mint, requests) still work: they send it.
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockIdpContainer, MockIdpContainerError } from '../../src/testcontainers/index.js';
import { containerTestsSkipReason, skipContainerTests, useContainer } from './docker.js';
import { writeTempFixtures } from './test-fixtures.js';

const QA_TOKEN = 'container-qa-token-7f3a';

/** QA routes of each kind: minting, reading and moving the clock, the journal, replacing the fixtures. */
const QA_ROUTES: [method: string, path: string, body?: string][] = [
  ['POST', '/mock/tokens', '{"type":"access","client":"batch-job"}'],
  ['GET', '/mock/clock'],
  ['POST', '/mock/clock', '{"seconds":86400}'],
  ['GET', '/mock/requests'],
  ['PUT', '/mock/fixtures', 'clients: {}\n'],
];

describe.skipIf(skipContainerTests)(`MockIdpContainer.withQaToken ${containerTestsSkipReason ?? ''}`, () => {
  let fixtures: Awaited<ReturnType<typeof writeTempFixtures>>;
  beforeAll(async () => {
    fixtures = await writeTempFixtures();
  });
  afterAll(async () => {
    await fixtures?.remove();
  });
  const idp = useContainer(() =>
    new MockIdpContainer().withFixtures(fixtures.path).withQaToken(QA_TOKEN).start(),
  );

  const call = (method: string, path: string, body: string | undefined, authorization?: string) =>
    fetch(`${idp.getBaseUrl()}${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(authorization !== undefined ? { authorization } : {}),
      },
      ...(body !== undefined ? { body } : {}),
    });

  it.each(QA_ROUTES)('%s %s without the token, or with another, is a 401', async (method, path, body) => {
    for (const authorization of [undefined, 'Bearer not-the-token', `Basic ${QA_TOKEN}`]) {
      const response = await call(method, path, body, authorization);
      expect(response.status, String(authorization)).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(((await response.json()) as { error?: string }).error).toBe('invalid_token');
    }
  });

  it('nothing a refused request asked for happened: the clock did not move, the fixtures stand', async () => {
    const clock = (await (await call('GET', '/mock/clock', undefined, `Bearer ${QA_TOKEN}`)).json()) as {
      epoch: number;
    };
    expect(Math.abs(clock.epoch - Date.now() / 1000)).toBeLessThan(3600);
    expect((await idp.getTokenResponse({ client: 'batch-job', scope: 'payments.read' })).token_type).toMatch(
      /^bearer$/i,
    );
  });

  it('mint() sends the token: the minted token verifies against the JWKS', async () => {
    const minted = await idp.mint({ type: 'access', client: 'batch-job', claims: { qa: 'yes' } });
    const { payload } = await jwtVerify(minted.token, createRemoteJWKSet(new URL(idp.getJwksUri())), {
      issuer: idp.getIssuer(),
    });
    expect(payload).toMatchObject({ azp: 'batch-job', qa: 'yes' });
  });

  it('mint() still reports a refusal of the request itself as MINT_FAILED with its status', async () => {
    const refused = idp.mint({ type: 'access', client: 'no-such-client' });
    await expect(refused).rejects.toBeInstanceOf(MockIdpContainerError);
    await expect(refused).rejects.toMatchObject({ code: 'MINT_FAILED', status: 400 });
  });

  it('requests() sends the token: the journal lists the token requests', async () => {
    await idp.getAccessToken({ client: 'batch-job', scope: 'payments.read' });
    const journal = await idp.requests({ endpoint: 'token' });
    expect(journal.length).toBeGreaterThan(0);
    expect(journal.every((r) => r.endpoint === 'token' && r.client === 'batch-job')).toBe(true);
  });
});

describe.skipIf(skipContainerTests)(
  `MockIdpContainer without withQaToken ${containerTestsSkipReason ?? ''}`,
  () => {
    it("the QA API stays open to the container's helpers and to plain calls", async () => {
      const fixtures = await writeTempFixtures();
      const idp = await new MockIdpContainer().withFixtures(fixtures.path).start();
      try {
        expect((await idp.mint({ type: 'access', client: 'batch-job' })).claims['azp']).toBe('batch-job');
        const open = await fetch(`${idp.getBaseUrl()}/mock/clock`);
        expect(open.status).toBe(200);
      } finally {
        await idp.stop();
        await fixtures.remove();
      }
    });
  },
);
