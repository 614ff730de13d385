// The form endpoints' body reader (src/http/form-body.ts) over HTTP: the object each body reads as, and
// the error each unreadable one gets (the endpoints answer from these: an array is a repeated parameter).
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORM_LIMIT, formBody } from '../../src/http/form-body.js';

let server: Server;
let url: string;

beforeAll(async () => {
  const app = express();
  const echo: RequestHandler = (req, res) => {
    res.json({
      body: req.body as unknown,
      proto: req.body === undefined ? null : Object.getPrototypeOf(req.body) === Object.prototype,
    });
  };
  app.post('/form', formBody, echo);
  const onError: ErrorRequestHandler = (err: { status?: number; type?: string }, _req, res, _next) => {
    res.status(err.status ?? 500).json({ error: err.type ?? 'unknown' });
  };
  app.use(onError);
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/form`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const FORM = 'application/x-www-form-urlencoded';

async function post(
  body: string | Buffer,
  headers: Record<string, string> = { 'content-type': FORM },
): Promise<{ status: number; json: unknown }> {
  const r = await fetch(url, { method: 'POST', headers, body });
  return { status: r.status, json: (await r.json()) as unknown };
}

const read = (body: Record<string, string | string[]>): { status: number; json: unknown } => ({
  status: 200,
  json: { body, proto: true },
});
const refused = (status: number, error: string): { status: number; json: unknown } => ({
  status,
  json: { error },
});
const numbered = (n: number): string => Array.from({ length: n }, (_, i) => `p${i}=${i}`).join('&');

describe('form bodies', () => {
  it.each<[string, string, { status: number; json: unknown }]>([
    [
      'a token request',
      'grant_type=client_credentials&scope=payments.read',
      read({ grant_type: 'client_credentials', scope: 'payments.read' }),
    ],
    [
      'a code exchange',
      'grant_type=authorization_code&code=abc.def-123&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb',
      read({ grant_type: 'authorization_code', code: 'abc.def-123', redirect_uri: 'http://127.0.0.1/cb' }),
    ],
    ['an empty body', '', read({})],
    ['a repeated parameter', 'a=1&a=2&a=3&b=x', read({ a: ['1', '2', '3'], b: 'x' })],
    ['a key without a value', 'x&y=&z=1', read({ x: '', y: '', z: '1' })],
    ['empty parts', '&&a=1&', read({ a: '1' })],
    ['plus and percent', 'a=%20+b+%2B&c=%E2%9C%93', read({ a: '  b +', c: '✓' })],
    ['a malformed escape', 'a=%zz&b=%E0%A4&c=100%', read({ a: '%zz', b: '%E0%A4', c: '100%' })],
    // %5B and %5D are brackets before a value is decoded, so a value that cannot be decoded still has them.
    [
      'an encoded bracket beside a malformed escape',
      'a=%%5B&b=%zz%5d&c=%5B%E0',
      read({ a: '%[', b: '%zz]', c: '[%E0' }),
    ],
    [
      '__proto__ and constructor',
      '__proto__=1&constructor=2&toString=3',
      read({ constructor: '2', toString: '3' }),
    ],
    ['an empty key', '=x&y=1', read({ y: '1' })],
    ['brackets', 'a[b]=1&c[]=2&c[]=3', read({ 'a[b]': '1', 'c[]': ['2', '3'] })],
    ['an encoded bracket in a key', 'a%5Bb%5D=1&a%2Eb=2', read({ 'a[b]': '1', 'a.b': '2' })],
    ['= in a value', 'a=b==&c=d', read({ a: 'b==', c: 'd' })],
    ['non-ASCII', 'name=Ærlig Østby&x=✓', read({ name: 'Ærlig Østby', x: '✓' })],
    ['a UTF-8 byte order mark', '\uFEFFa=1', read({ a: '1' })],
    [
      '100 parameters',
      numbered(100),
      read(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`p${i}`, String(i)]))),
    ],
    ['101 parameters', numbered(101), refused(413, 'parameters.too.many')],
    ['101 parts, some empty', `${'&'.repeat(100)}a=1`, refused(413, 'parameters.too.many')],
    ['a body over the limit', `a=${'x'.repeat(FORM_LIMIT)}`, refused(413, 'entity.too.large')],
  ])('%s', async (_name, body, expected) => {
    expect(await post(body)).toEqual(expected);
  });

  const utf8 = read({ a: '1', b: '✓', c: 'caf%E9' });
  it.each<[string, Record<string, string>, { status: number; json: unknown }]>([
    ['charset=utf-8', { 'content-type': `${FORM}; charset=utf-8` }, utf8],
    ['charset=UTF-8, spaced', { 'content-type': `${FORM} ;  charset=UTF-8` }, utf8],
    ['charset=latin1', { 'content-type': `${FORM}; charset=latin1` }, refused(415, 'charset.unsupported')],
    [
      'charset=iso-8859-1',
      { 'content-type': `${FORM}; charset=iso-8859-1` },
      read({ a: '1', b: '\u00e2\u009c\u0093', c: 'café' }),
    ],
    ['upper-case type', { 'content-type': FORM.toUpperCase() }, utf8],
    ['another type', { 'content-type': 'text/plain' }, { status: 200, json: { proto: null } }],
    ['no type', {}, { status: 200, json: { proto: null } }],
    ['content-encoding identity', { 'content-type': FORM, 'content-encoding': 'identity' }, utf8],
    [
      'content-encoding br2',
      { 'content-type': FORM, 'content-encoding': 'br2' },
      refused(415, 'encoding.unsupported'),
    ],
    ['gzip that is not gzip', { 'content-type': FORM, 'content-encoding': 'gzip' }, refused(400, 'unknown')],
  ])('with %s', async (_name, headers, expected) => {
    expect(await post('a=1&b=%E2%9C%93&c=caf%E9', headers)).toEqual(expected);
  });

  it('with a gzip body', async () => {
    const answer = await post(gzipSync('grant_type=client_credentials'), {
      'content-type': FORM,
      'content-encoding': 'gzip',
    });
    expect(answer).toEqual(read({ grant_type: 'client_credentials' }));
  });
});
