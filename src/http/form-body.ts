// The urlencoded body of the form endpoints (token, introspection, revocation, authorize, userinfo, logout):
// express.urlencoded's answers, with a cheaper path for the bodies clients send. A plain ASCII form
// (`application/x-www-form-urlencoded`, no content coding, a Content-Length within the limit, keys of letters,
// digits and `._~*-`) is read and split here: body-parser's reader costs ~75 µs of CPU per request
// (content-type and charset parsing, raw-body, iconv, on-finished; bench/ab.js), a third of a token
// request's main-thread work beyond bare node:http. Any other body goes through express.urlencoded itself,
// so its parse (qs) and its errors (413, 415, 400) stay exactly express's.
import { Readable } from 'node:stream';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';

const FORM = 'application/x-www-form-urlencoded';
/** Key=value pairs whose keys need no decoding and whose values only percent/plus decoding, as qs reads them. */
const SIMPLE = /^(?:[\w.~*-]+(?:=[\w.~*%+-]*)?)?(?:&(?:[\w.~*-]+(?:=[\w.~*%+-]*)?)?)*$/;

/**
 * qs's value decoding: `%5B` and `%5D` are brackets first (qs does that to the whole body before it
 * splits it; keys read here have no `%`), `+` is a space, then percent-decoding; a malformed escape leaves
 * the text as it is.
 */
function decodeValue(v: string): string {
  const spaced = v.includes('+') ? v.replace(/\+/g, ' ') : v;
  if (!spaced.includes('%')) return spaced;
  const bracketed = spaced.replace(/%5B/gi, '[').replace(/%5D/gi, ']');
  try {
    return decodeURIComponent(bracketed);
  } catch {
    return bracketed;
  }
}

/** The object express.urlencoded({ extended: false }) makes of a SIMPLE body (repeated keys become arrays). */
function parseSimple(body: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (body === '') return out;
  for (const part of body.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    if (key === '__proto__') continue; // qs drops it
    const value = eq < 0 ? '' : decodeValue(part.slice(eq + 1));
    const had = Object.hasOwn(out, key) ? out[key] : undefined;
    out[key] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  return out;
}

/** Whether the content type is the form type, optionally `; charset=utf-8` (any case and spacing). */
function isPlainForm(type: string | undefined): boolean {
  if (type === undefined) return false;
  if (type === FORM) return true;
  const [media = '', ...params] = type.toLowerCase().split(';');
  if (media.trim() !== FORM) return false;
  return params.length === 0 || (params.length === 1 && params[0]?.replace(/\s/g, '') === 'charset=utf-8');
}

/**
 * express.urlencoded({ extended: false, limit, parameterLimit }), reading plain ASCII forms itself.
 * @param limitBytes the body size limit (413 above it, as express's)
 */
export function formBody(limitBytes: number, parameterLimit: number): RequestHandler {
  const standard = express.urlencoded({ extended: false, limit: limitBytes, parameterLimit });
  /** Hands a body already read to express.urlencoded, as if it arrived now. */
  const replay = (req: Request, res: Response, next: NextFunction, body: Buffer): void => {
    const stream = Object.assign(new Readable({ read: () => undefined }), {
      headers: req.headers,
      method: req.method,
      // on-finished (body-parser's "already read?") looks at these: a message not yet complete on a live socket.
      socket: { readable: true, writable: true },
      complete: false,
      body: undefined as unknown,
    });
    stream.push(body);
    stream.push(null);
    standard(stream as unknown as Request, res, (err?: unknown) => {
      req.body = stream.body;
      next(err);
    });
  };
  return (req, res, next) => {
    const h = req.headers;
    const length = h['content-length'];
    const n = length !== undefined && /^\d{1,9}$/.test(length) ? Number(length) : -1;
    if (
      req.method !== 'POST' ||
      n < 0 ||
      n > limitBytes ||
      h['transfer-encoding'] !== undefined ||
      (h['content-encoding'] !== undefined && h['content-encoding'].toLowerCase() !== 'identity') ||
      !isPlainForm(h['content-type'])
    ) {
      standard(req, res, next);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('error', (err) => next(Object.assign(err, { status: 400, type: 'request.aborted' })));
    req.once('end', () => {
      const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      const text = body.toString('latin1');
      let parameters = 1;
      for (let i = text.indexOf('&'); i >= 0; i = text.indexOf('&', i + 1)) parameters++;
      if (parameters > parameterLimit || !SIMPLE.test(text)) {
        replay(req, res, next, body);
        return;
      }
      req.body = parseSimple(text);
      next();
    });
  };
}
