// `mock-idp check FILE`: validate a fixtures file; every problem as FILE:LINE:COL message.
import { summaryOfFile } from '../fixtures/parse-worker.js';

export async function check(file: string, stdout: (line: string) => void): Promise<void> {
  const summary = await summaryOfFile(file);
  stdout(
    `${file}: OK (realm "${summary.realm}": ${summary.clients} clients, ${summary.users} users, ${summary.scopes} scopes)`,
  );
}
