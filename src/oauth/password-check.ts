// A user's password, checked as the password grant and the login form check it: the fixture's plain password
// (compared in constant time), or the hash a Keycloak realm export holds.
import { createHash, timingSafeEqual } from 'node:crypto';
import { matchesHash } from '../fixtures/keycloak/credentials.js';
import type { Subject } from '../fixtures/realm.js';
import type { RealmContext } from '../realm/context.js';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Compared as digests: constant time whatever the lengths. */
function samePassword(given: string, expected: string | undefined): boolean {
  return expected !== undefined && timingSafeEqual(digest(given), digest(expected));
}

/** Whether `password` is `user`'s; false for a user without one. */
export async function passwordMatches(p: RealmContext, user: Subject, password: string): Promise<boolean> {
  if (samePassword(password, user.password)) return true;
  const hash = p.realm.keycloak?.users.get(user.username)?.passwordHash;
  return hash !== undefined && (await matchesHash(password, hash));
}
