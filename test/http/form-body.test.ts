// The form endpoints' body reader (src/http/form-body.ts) answers as express.urlencoded does: one server
// with both readers on two paths, the same requests to each, the same parsed body or the same error.
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formBody } from '../../src/http/form-body.js';
import { SEED } from '../fuzz/harness.js';

const LIMIT = 64 * 1024;
let server: Server;
let base: string;

beforeAll(async () => {
  const app = express();
  const echo: RequestHandler = (req, res) => {
    res.json({
      body: req.body as unknown,
      proto: req.body === undefined ? null : Object.getPrototypeOf(req.body) === Object.prototype,
    });
  };
  app.post('/ours', formBody(LIMIT, 100), echo);
  app.post('/express', express.urlencoded({ extended: false, limit: LIMIT, parameterLimit: 100 }), echo);
  const onError: ErrorRequestHandler = (err: { status?: number; type?: string }, _req, res, _next) => {
    res.status(err.status ?? 500).json({ error: err.type ?? 'unknown' });
  };
  app.use(onError);
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

async function both(
  body: string | Buffer,
  headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' },
): Promise<[unknown, unknown]> {
  const ask = async (path: string): Promise<unknown> => {
    const r = await fetch(base + path, { method: 'POST', headers, body });
    return { status: r.status, json: (await r.json()) as unknown };
  };
  return [await ask('/ours'), await ask('/express')];
}

const FORM = 'application/x-www-form-urlencoded';

describe('the same answer as express.urlencoded', () => {
  it.each([
    ['a token request', 'grant_type=client_credentials&scope=payments.read'],
    [
      'a code exchange',
      'grant_type=authorization_code&code=abc.def-123&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb',
    ],
    ['an empty body', ''],
    ['a repeated parameter', 'a=1&a=2&a=3&b=x'],
    ['a key without a value', 'x&y=&z=1'],
    ['empty parts', '&&a=1&'],
    ['plus and percent', 'a=%20+b+%2B&c=%E2%9C%93'],
    ['a malformed escape', 'a=%zz&b=%E0%A4&c=100%'],
    // Found by the property below (a random seed in CI): qs turns %5B and %5D into brackets in the whole
    // body before decoding, so a value it cannot decode still has them.
    ['an encoded bracket beside a malformed escape', 'a=%%5B&b=%zz%5d&c=%5B%E0'],
    ['__proto__ and constructor', '__proto__=1&constructor=2&toString=3'],
    ['an empty key', '=x&y=1'],
    ['brackets', 'a[b]=1&c[]=2&c[]=3'],
    ['an encoded bracket in a key', 'a%5Bb%5D=1&a%2Eb=2'],
    ['= in a value', 'a=b==&c=d'],
    ['non-ASCII', 'name=Ærlig Østby&x=✓'],
    ['a UTF-8 byte order mark', '\uFEFFa=1'],
    ['100 parameters', Array.from({ length: 100 }, (_, i) => `p${i}=${i}`).join('&')],
    ['101 parameters', Array.from({ length: 101 }, (_, i) => `p${i}=${i}`).join('&')],
    ['101 parts, some empty', `${'&'.repeat(100)}a=1`],
    ['a body over the limit', `a=${'x'.repeat(LIMIT)}`],
  ])('%s', async (_name, body) => {
    const [ours, theirs] = await both(body);
    expect(ours).toEqual(theirs);
  });

  it.each([
    ['charset=utf-8', { 'content-type': `${FORM}; charset=utf-8` }],
    ['charset=UTF-8, spaced', { 'content-type': `${FORM} ;  charset=UTF-8` }],
    ['charset=latin1', { 'content-type': `${FORM}; charset=latin1` }],
    ['charset=iso-8859-1', { 'content-type': `${FORM}; charset=iso-8859-1` }],
    ['upper-case type', { 'content-type': FORM.toUpperCase() }],
    ['another type', { 'content-type': 'text/plain' }],
    ['no type', {}],
    ['content-encoding identity', { 'content-type': FORM, 'content-encoding': 'identity' }],
    ['content-encoding br2', { 'content-type': FORM, 'content-encoding': 'br2' }],
    ['gzip that is not gzip', { 'content-type': FORM, 'content-encoding': 'gzip' }],
  ])('with %s', async (_name, headers) => {
    const [ours, theirs] = await both('a=1&b=%E2%9C%93&c=caf%E9', headers);
    expect(ours).toEqual(theirs);
  });

  it('with a gzip body', async () => {
    const [ours, theirs] = await both(gzipSync('grant_type=client_credentials'), {
      'content-type': FORM,
      'content-encoding': 'gzip',
    });
    expect(ours).toEqual(theirs);
    expect(ours).toMatchObject({ status: 200, json: { body: { grant_type: 'client_credentials' } } });
  });

  it('for any body of form characters', async () => {
    const chars = fc.constantFrom(...'aZ09_.~*-%+=&[]!;/ ?#✓éE2A'.split(''), '%2', '%E2%9C%93', '%5B');
    await fc.assert(
      fc.asyncProperty(fc.array(chars, { maxLength: 40 }), async (parts) => {
        const [ours, theirs] = await both(parts.join(''));
        expect(ours).toEqual(theirs);
      }),
      // The project's fixed seed (FUZZ_SEED explores others), so a failure reproduces.
      { numRuns: 150, seed: SEED },
    );
  });
});
