// Makes the V8 code caches of dist/cli.script.js (scripts/bundle-cli.js calls this right after making the
// script): one per set of node flags the CLI starts with — none (`node bin/mock-idp.js`, `npx mock-idp`,
// npm start, the image's entrypoint) and the bin's shebang flags when it has any — since V8 takes a cache
// only under the Node version and the flags that made it. Each is made in a child process under those flags
// that runs the script as bin/mock-idp.js does, starts the server on the bundled fixtures, reads the
// discovery document and takes a client_credentials token, so what a start and a first token run is
// compiled in the cache. The child's server does not set
// the run-time heap flags a served CLI sets once it listens (src/heap-flags.ts; MOCK_IDP_BUILD_WORKER_CACHE
// tells it), since V8 stamps a cache with the flags in force when it is written. The caches are named as bin/mock-idp.js looks for them (the build id in the script's first comment, the
// Node version and platform, a hash of the flags); earlier ones are removed.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const SCRIPT_URL = new URL('../dist/cli.script.js', import.meta.url);
const SCRIPT = fileURLToPath(SCRIPT_URL);
const BIN = fileURLToPath(new URL('../bin/mock-idp.js', import.meta.url));

const { cacheFileOf, shebangFlags } = /** @type {typeof import('../bin/code-cache.js')} */ (
  createRequire(import.meta.url)('../bin/code-cache.js')
);

/**
 * The cache file next to `scriptUrl` that is read for its `source` under this Node and `execArgv`
 * (bin/code-cache.js names it, for the bin and the fixtures worker alike).
 * @param {URL} scriptUrl
 * @param {string} source
 * @param {string[]} execArgv
 */
function cacheNextTo(scriptUrl, source, execArgv) {
  const name = cacheFileOf(fileURLToPath(scriptUrl), source, execArgv);
  if (name === undefined) throw new Error(`${fileURLToPath(scriptUrl)} has no build id`);
  return name;
}

/**
 * The cache file bin/mock-idp.js reads for `source` under this Node and `execArgv` (test/cli/code-cache.test.ts
 * checks that the bin and the worker take the caches made).
 * @param {string} source
 * @param {string[]} execArgv
 */
export function cacheFileFor(source, execArgv) {
  return cacheNextTo(SCRIPT_URL, source, execArgv);
}

/** In the child: run the script as the bin does, start and use the server, write the cache. */
async function child() {
  const source = readFileSync(SCRIPT, 'utf8');
  const script = new Script(source, { filename: SCRIPT });
  const module = { exports: /** @type {{ main: (argv: string[]) => Promise<unknown> }} */ ({}) };
  script.runInThisContext()(
    module.exports,
    createRequire(SCRIPT),
    module,
    SCRIPT,
    dirname(SCRIPT),
    SCRIPT_URL.href,
  );
  /** @type {string[]} */
  const lines = [];
  const write = process.stdout.write;
  process.stdout.write = (/** @type {unknown} */ chunk) => lines.push(String(chunk)) > 0;
  await module.exports.main(['serve', '--host', '127.0.0.1', '--port', '0', '--quiet']);
  process.stdout.write = write;
  const base = /listening on (\S+)/.exec(lines.join(''))?.[1];
  if (base === undefined) throw new Error(`code cache: no ready line in ${JSON.stringify(lines.join(''))}`);
  const discovery = await fetch(`${base}/.well-known/openid-configuration`);
  const res = await fetch(`${base}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from('batch-job:batch-secret').toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  });
  if (discovery.status !== 200 || res.status !== 200)
    throw new Error(`code cache: discovery answered ${discovery.status}, the token request ${res.status}`);
  writeFileSync(cacheFileFor(source, process.execArgv), script.createCachedData());
  process.exit(0);
}

/** Removes the caches of earlier builds and makes this build's, one child per set of flags. */
export function makeCodeCaches() {
  for (const name of readdirSync(dirname(SCRIPT)))
    if (/^(cli|fixtures-worker)\.script\..*\.cache$/.test(name)) rmSync(new URL(name, SCRIPT_URL));
  const env = { ...process.env, NODE_OPTIONS: '' };
  for (const name of ['PORT', 'HOST', 'LOG_LEVEL']) delete env[name];
  for (const name of Object.keys(env)) if (name.startsWith('MOCK_IDP_')) delete env[name];
  env['MOCK_IDP_BUILD_WORKER_CACHE'] = '1'; // the fixtures worker writes its cache (see child)
  // The shebang has no flags today (the server sets its heap flags at run time): then this is one set.
  const sets = new Map([[], shebangFlags(BIN)].map((flags) => [flags.join(' '), flags]));
  for (const flags of sets.values()) {
    const run = spawnSync(process.execPath, [...flags, fileURLToPath(import.meta.url), '--child'], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env,
    });
    if (run.status !== 0)
      throw new Error(`code cache (node ${flags.join(' ')}): the child exited ${run.status}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === '--child') await child();
  else makeCodeCaches();
}
