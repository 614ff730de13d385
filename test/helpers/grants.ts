// The fjord fixtures with the clients the token exchange, JWT bearer and client_secret_jwt tests use.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { FixturesInput } from '../../src/fixtures/schema.js';
import { FJORD_FIXTURES } from './server.js';

export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const DEVICE_CODE = 'urn:ietf:params:oauth:grant-type:device_code';
export const CIBA = 'urn:openid:params:grant-type:ciba';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
export const REFRESH_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:refresh_token';

type Clients = FixturesInput['clients'];

/**
 * fjord, where ledger-api (in the audience of ledger.read tokens) may exchange them (and refresh what it gets
 * so, listing no refresh_token grant), kiosk-spa (public) and
 * statement-rs list the exchange too, vault-signer may use JWT bearer and `extra` adds or replaces clients.
 */
export function grantsFixtures(extra: Clients = {}, tokens: FixturesInput['tokens'] = {}): FixturesInput {
  const fjord = parse(readFileSync(FJORD_FIXTURES, 'utf8')) as FixturesInput;
  const clients = fjord.clients;
  const add = (id: string, grants: string[]): void => {
    const c = clients[id] as { grants?: string[] };
    c.grants = [...(c.grants ?? []), ...grants];
  };
  add('ledger-api', [TOKEN_EXCHANGE]);
  add('statement-rs', [TOKEN_EXCHANGE]);
  add('kiosk-spa', ['authorization_code', 'refresh_token', TOKEN_EXCHANGE]);
  add('vault-signer', [JWT_BEARER]);
  return { ...fjord, tokens: { ...fjord.tokens, ...tokens }, clients: { ...clients, ...extra } };
}
