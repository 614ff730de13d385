// `npm run fuzz`: the property-based tests of test/fuzz with many more runs (FUZZ_RUNS, percent of the
// `npm test` runs, default 2000) and any seed (FUZZ_SEED, default the fixed one), without test timeouts.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = { ...process.env, FUZZ_RUNS: process.env.FUZZ_RUNS ?? '2000' };
process.stderr.write(
  `mock-idp fuzz: FUZZ_RUNS=${env.FUZZ_RUNS} (% of the npm test runs), FUZZ_SEED=${env.FUZZ_SEED ?? 'fixed (20261123)'}\n`,
);
const result = spawnSync(
  process.execPath,
  [
    `${root}node_modules/vitest/vitest.mjs`,
    'run',
    'test/fuzz',
    '--testTimeout=86400000',
    ...process.argv.slice(2),
  ],
  { cwd: root, env, stdio: 'inherit' },
);
process.exit(result.status ?? 1);
