// `mock-idp check FILE`: validate a fixtures file; every problem as FILE:LINE:COL message.
import { loadFixturesFile } from '../fixtures/load.js';
import { buildRealm } from '../fixtures/realm.js';

export async function check(file: string, stdout: (line: string) => void): Promise<void> {
  const realm = await buildRealm(await loadFixturesFile(file));
  stdout(
    `${file}: OK (realm "${realm.name}": ${realm.clients.size} clients, ${realm.users.size} users, ${realm.scopes.size} scopes)`,
  );
}
