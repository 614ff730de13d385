// Pairwise subject identifiers (OIDC Core 8.1): a client with a sector sees each user under a `sub` of that
// sector, which clients of other sectors cannot link. Service accounts keep their own `sub`.
import { createHash } from 'node:crypto';
import type { Client, Realm, Subject } from '../fixtures/realm.js';
import { nameUuid } from '../ids.js';
import type { Grant } from './claims.js';

/**
 * OIDC Core 8.1's `sub = SHA-256(sector_identifier || local_sub || salt)`, UUID-shaped as Keycloak's SHA-256
 * pairwise mapper gives it.
 */
function pairwiseSub(sector: string, localSub: string, salt: string): string {
  return nameUuid('pairwise', sector, localSub, salt);
}

/**
 * The realm's pairwise salt: from the seed when there is one (`seeded`), else from the realm name, so
 * pairwise subs stay the same across restarts as derived public subs do.
 */
export function pairwiseSalt(seeded: Buffer | undefined, realmName: string): string {
  return (seeded ?? createHash('sha256').update(`pairwise-salt\u0000${realmName}`).digest()).toString(
    'base64url',
  );
}

type SubjectEntry = NonNullable<ReturnType<Realm['subjects']['get']>>;

/** Computes the `sub` each client sees, and finds the subject behind a `sub` a client was given. */
export class SubjectIds {
  readonly #salt: string;
  /** Per realm (a replaced realm starts afresh), per sector: pairwise sub → user. Built on first use. */
  readonly #bySector = new WeakMap<Realm, Map<string, Map<string, Subject>>>();

  constructor(salt: string) {
    this.#salt = salt;
  }

  /** The `sub` `client` sees for a user's local `sub` (a service account's is never pairwise). */
  subFor(client: Client, localSub: string, serviceAccount = false): string {
    const sector = client.sectorIdentifier;
    return sector === undefined || serviceAccount ? localSub : pairwiseSub(sector, localSub, this.#salt);
  }

  /** The grant with the `sub` its client sees (the claim builders read `grant.sub`). */
  forClient(grant: Grant): Grant {
    const sub = this.subFor(grant.client, grant.subject.sub, grant.serviceAccount);
    return sub === grant.subject.sub ? grant : { ...grant, sub };
  }

  /** The user or service account a token's `sub` names, read as the token's client (`azp`) sees subjects. */
  lookup(realm: Realm, sub: string, azp: string | undefined): SubjectEntry | undefined {
    const entry = realm.subjects.get(sub);
    const sector = azp !== undefined ? realm.clients.get(azp)?.sectorIdentifier : undefined;
    if (sector === undefined || entry?.serviceAccountOf !== undefined) return entry;
    const user = this.#sector(realm, sector).get(sub);
    return user !== undefined ? { subject: user } : undefined;
  }

  #sector(realm: Realm, sector: string): Map<string, Subject> {
    let sectors = this.#bySector.get(realm);
    if (sectors === undefined) this.#bySector.set(realm, (sectors = new Map()));
    let subs = sectors.get(sector);
    if (subs === undefined) {
      subs = new Map();
      for (const user of realm.users.values()) subs.set(pairwiseSub(sector, user.sub, this.#salt), user);
      sectors.set(sector, subs);
    }
    return subs;
  }
}
