// `mock-idp check FILE`: validate a fixtures file; every problem as FILE:LINE:COL message.
import { logWarnings } from '../fixtures/errors.js';
import { loadFixturesFile } from '../fixtures/load.js';
import { buildRealm } from '../fixtures/realm.js';

/** `1 client`, `2 clients`. */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

export async function check(file: string, stdout: (line: string) => void): Promise<void> {
  const realm = await buildRealm(await loadFixturesFile(file));
  // What Keycloak reads past (it would too): said, and the file is still OK.
  logWarnings({ warn: stdout }, realm);
  stdout(
    `${file}: OK (realm "${realm.name}": ${counted(realm.clients.size, 'client')}, ${counted(realm.users.size, 'user')}, ${counted(realm.scopes.size, 'scope')})`,
  );
}
