// The commander program: argv → typed options → plain async functions. Exit codes in exit.ts.
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { existsSync } from 'node:fs';
import { didYouMean } from '../suggest.js';
import { check } from './check.js';
import { CliError, EXIT } from './cli-error.js';
import { reportError } from './exit.js';
import { keygen } from './keygen.js';
import { MINT_SIGNATURES, MINT_TOKEN_TYPES } from '../qa/mint-request.js';
import {
  collect,
  parseClock,
  parseKeyValue,
  parseLogLevel,
  parsePort,
  parseQaToken,
  qaApiFromEnv,
  tlsFromEnv,
  parseBoolean,
  parseTlsHost,
  parseSeconds,
  parseApiVersion,
  parseJwkJson,
  parseTokenTime,
  parseRelativePath,
  parseBrand,
  parseMethods,
  parseUrl,
  parseSeed,
  parseUserCount,
} from './options.js';
import { serve, type ServeOptions } from './serve.js';
import { StoreError } from '../store/backend.js';
import { token, type TokenOptions } from './token.js';
import { users, type UsersOptions } from './users.js';
import { packageVersion } from './version.js';
import { adminUserOf } from '../admin/master.js';

interface CliIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** bulk output (`users`), written with backpressure */
  output: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

const defaultIo: CliIo = {
  stdout: (l) => process.stdout.write(`${l}\n`),
  stderr: (l) => process.stderr.write(`${l}\n`),
  output: process.stdout,
  env: process.env,
};

/** What a command's action leaves behind: an exit code, or `running` for a server that keeps the process up. */
interface CommandOutcome {
  running: boolean;
}

function buildProgram(io: CliIo = defaultIo, outcome: CommandOutcome = { running: false }): Command {
  /**
   * A required option, checked once the command line is read (commander's own check comes before its check of
   * unknown options, so `token --clinet x` would say --client is missing rather than point at the typo).
   */
  const required =
    (flags: string, key: string) =>
    (command: Command): void => {
      if (command.opts()[key] === undefined)
        command.error(`error: required option '${flags}' not specified`, {
          code: 'commander.missingMandatoryOptionValue',
        });
    };

  const program = new Command('mock-idp')
    .description('A local mock OpenID Connect provider for integration tests')
    .usage('[serve] [options]  |  mock-idp <command> [options]')
    .version(packageVersion(), '-V, --version', 'print the version')
    .configureOutput({
      writeOut: (s) => io.stdout(s.trimEnd()),
      writeErr: (s) => io.stderr(s.trimEnd()),
      outputError: (s, write) => write(withShortFlagHint(s)),
    })
    .exitOverride()
    .showHelpAfterError('(run mock-idp --help for usage)');

  const serveCommand = program
    .command('serve', { isDefault: true })
    .description('start the server (the default command)')
    .option(
      '--fixtures <file>',
      'users, clients, scopes and claims (YAML); repeat it to serve several realms; default: the bundled fixtures/default.yaml',
      (file: string, previous: string[] | undefined) => [...(previous ?? []), file],
    )
    .addOption(
      new Option('--port <n>', 'port; 0 picks a free one').env('PORT').default(8080).argParser(parsePort),
    )
    .addOption(new Option('--host <addr>', 'bind address').env('HOST').default('127.0.0.1'))
    .option('--issuer <url>', 'fixed public realm base URL (default: derived per request)', parseUrl)
    .option(
      '--key <file>',
      'private signing key, PEM or JWK: RSA, or EC P-256 for ES256; repeat it to give both (default: ephemeral)',
      (file: string, previous: string | string[] | undefined) =>
        previous === undefined ? file : [...(Array.isArray(previous) ? previous : [previous]), file],
    )
    .option(
      '--clock <time>',
      'start time: ISO-8601 instant or epoch seconds (default: real time)',
      parseClock,
    )
    .option('--frozen', 'time stands still until advanced')
    .option('--seed <text>', 'makes jti, session ids and codes reproducible')
    .option('--watch', 'reload a fixtures file when it changes; a broken edit keeps the last good one')
    .addOption(
      new Option('--log-level <level>', 'debug, info, warn, error or silent')
        .env('LOG_LEVEL')
        .default('info')
        .argParser(parseLogLevel),
    )
    .option('--quiet', 'no request log lines (same as --log-level warn)')
    .addOption(
      new Option('--qa-token <token>', 'every /mock request must carry Authorization: Bearer TOKEN')
        .env('MOCK_IDP_QA_TOKEN')
        .argParser(parseQaToken),
    )
    .addOption(
      new Option(
        '--store <url>',
        'where state lives: memory (default) or redis://[:password@]host:port[/db], shared by replicas',
      ).env('MOCK_IDP_STORE'),
    )
    .addOption(
      new Option(
        '--http-relative-path <path>',
        'serve everything under PATH, as Keycloak does (/auth: /auth/realms/{realm}/..., /auth/health)',
      )
        .env('KC_HTTP_RELATIVE_PATH')
        .argParser(parseRelativePath),
    )
    .option(
      '--admin-user <name>',
      'the admin user of realm master (env KC_BOOTSTRAP_ADMIN_USERNAME or KEYCLOAK_ADMIN; default admin)',
    )
    .option(
      '--admin-password <text>',
      "the admin user's password (env KC_BOOTSTRAP_ADMIN_PASSWORD or KEYCLOAK_ADMIN_PASSWORD; default admin)",
    )
    .option('--no-qa-api', 'turn the QA API off: /mock answers 404 (env MOCK_IDP_QA_API=off)')
    .addOption(
      new Option(
        '--hostname-backchannel-dynamic [bool]',
        'with --issuer: back-channel URLs in discovery (token, certs, userinfo, ...) follow the request, as Keycloak',
      )
        .env('KC_HOSTNAME_BACKCHANNEL_DYNAMIC')
        .argParser(parseBoolean),
    )
    .option(
      '--tls',
      'serve https with a certificate made at start for localhost, 127.0.0.1 and ::1, signed by a mock CA (env MOCK_IDP_TLS=true)',
    )
    .option(
      '--tls-host <name>',
      'with --tls: one more DNS name or IP address the certificate holds (repeatable)',
      collect(parseTlsHost),
    )
    .addOption(
      new Option(
        '--tls-ca-out <file>',
        "with --tls: write the mock CA's certificate (PEM) here (default: a temp file, named on the ready line)",
      ).env('MOCK_IDP_TLS_CA_OUT'),
    )
    .addOption(
      new Option('--tls-cert <file>', 'serve https with this PEM certificate (with --tls-key)').env(
        'MOCK_IDP_TLS_CERT',
      ),
    )
    .addOption(new Option('--tls-key <file>', 'the PEM private key of --tls-cert').env('MOCK_IDP_TLS_KEY'))
    .allowExcessArguments(true)
    .action(async (options: ServeOptions, command: Command) => {
      const [first] = command.args;
      if (first !== undefined) throw new CliError(notACommand(first, program), EXIT.usage);
      if (options.qaApi !== false) options.qaApi = qaApiFromEnv(io.env['MOCK_IDP_QA_API']);
      if (options.tls !== true && tlsFromEnv(io.env['MOCK_IDP_TLS'])) options.tls = true;
      const admin = adminUserOf(options, io.env);
      options.adminUser = admin.username;
      options.adminPassword = admin.password;
      try {
        await serve(options, { stdout: io.stdout, stderr: io.stderr });
      } catch (err) {
        // A bad store value from the environment: name the variable the user set, not the flag.
        if (err instanceof StoreError && command.getOptionValueSource('store') === 'env')
          throw new StoreError(err.message.replace(/^--store\b/, 'MOCK_IDP_STORE'));
        throw err;
      }
      outcome.running = true;
    });

  program
    .command('check')
    .description(
      'validate a fixtures file: exit 0, or print every problem as FILE:LINE:COL message and exit 1',
    )
    .argument('[file]', 'fixtures file')
    .option('--fixtures <file>', 'the same as FILE')
    .action(async (file: string | undefined, options: { fixtures?: string }) => {
      if (file !== undefined && options.fixtures !== undefined && file !== options.fixtures)
        throw new CliError(
          'mock-idp check: give the fixtures file once (FILE or --fixtures FILE)',
          EXIT.usage,
        );
      const path = file ?? options.fixtures;
      if (path === undefined)
        throw new CliError(
          "error: missing required argument 'file' (mock-idp check FILE, or --fixtures FILE)",
          EXIT.usage,
        );
      await check(path, io.stdout);
    });

  program
    .command('token')
    .description(
      'print one signed token (for QA scripts), from a running server (--server URL) or offline (--key FILE)',
    )
    .addOption(new Option('--type <type>', 'token type').choices(MINT_TOKEN_TYPES).default('access'))
    .option('--client <id>', 'client id from the fixtures (azp; aud of ID and proof tokens; required)')
    .hook('preAction', required('--client <id>', 'client'))
    .option('--user <username>', "fixture user (default: the client's service account)")
    .option('--scope <scopes>', 'space-separated scopes (default: what a real grant would give)')
    .option(
      '--claim <name=value>',
      'set a claim; the value is JSON when it parses, else a string (repeatable)',
      collect(parseKeyValue),
    )
    .option('--remove <name>', 'remove a claim (repeatable)', collect(String))
    .option(
      '--header <name=value>',
      'set a JOSE header parameter, as --claim (repeatable; null removes)',
      collect(parseKeyValue),
    )
    .option('--expires-in <seconds>', 'lifetime from iat; negative = already expired', parseSeconds)
    .option(
      '--issued-at <time>',
      'iat: +N/-N seconds from now, ISO-8601 instant or epoch seconds (default: now)',
      parseTokenTime,
    )
    .option(
      '--not-before <time>',
      'nbf: +N/-N seconds from now (on the server clock), ISO-8601 instant or epoch seconds (default: none)',
      parseTokenTime,
    )
    .addOption(
      new Option(
        '--signature <kind>',
        'valid, invalid (wrong signature bytes), none (alg none) or unknown-key (a key in no JWKS)',
      )
        .choices(MINT_SIGNATURES)
        .default('valid'),
    )
    .option(
      '--api-version <n>',
      "interface version to mint in, 1 to 4 (default: the client's)",
      parseApiVersion,
    )
    .option(
      '--dpop-jwk <json>',
      'DPoP-bind an access or refresh token to this public JWK (cnf.jkt: its thumbprint)',
      parseJwkJson,
    )
    .addOption(
      new Option(
        '--server <url>',
        'running server: realm base URL, or origin (with its --http-relative-path) for realm "mock"',
      )
        .argParser(parseUrl)
        .conflicts(['key', 'fixtures', 'clock', 'seed', 'issuer']),
    )
    .option('--key <file>', 'offline: private signing key, PEM or JWK (as serve --key)')
    .option('--fixtures <file>', 'offline: fixtures file (default: the bundled fixtures/default.yaml)')
    .option('--clock <time>', 'offline: the time to mint at (default: real time)', parseClock)
    .option('--seed <text>', 'offline: makes jti and session id reproducible')
    .option(
      '--issuer <url>',
      `offline: issuer (default: the fixtures' issuer, else http://127.0.0.1:8080/realms/REALM)`,
      parseUrl,
    )
    .addOption(
      new Option('--qa-token <token>', "with --server: the server's --qa-token")
        .env('MOCK_IDP_QA_TOKEN')
        .argParser(parseQaToken),
    )
    .option('--json', 'print {token, header, claims} instead of the bare token')
    .action(async (options: TokenOptions) => {
      await token(options, io.stdout);
    });

  program
    .command('keygen')
    .description('print a new private key (PKCS#8 PEM) for --key: RSA, or EC P-256 with --type ec')
    .addOption(new Option('--type <type>', 'key type').choices(['rsa', 'ec']).default('rsa'))
    .addOption(
      new Option('--bits <n>', 'RSA modulus length in bits, 2048 to 8192').default(2048).argParser((v) => {
        if (!/^\d+$/.test(v) || Number(v) < 2048 || Number(v) > 8192)
          throw new InvalidArgumentError('2048 to 8192.');
        return Number(v);
      }),
    )
    .option('--jwk', 'print a JWK instead of PEM')
    .action(async (options: { bits: number; jwk?: boolean; type: 'rsa' | 'ec' }) => {
      await keygen(options, io.stdout);
    });

  program
    .command('users')
    .description('print N synthetic test identities as a YAML users: block')
    .option('--count <n>', 'how many users, 1 to 1000000 (required)', parseUserCount)
    .hook('preAction', required('--count <n>', 'count'))
    .option(
      '--seed <text>',
      'the same seed prints the same users (default: different on every run)',
      parseSeed,
    )
    .option('--brand <word>', "the fixtures' brand: names the altsub claim and the acr values", parseBrand)
    .option(
      '--methods <list>',
      'the sign-in methods each user may use, comma-separated: bid, bis (default: not written, so both)',
      parseMethods,
    )
    .action(async (options: UsersOptions) => {
      await users(options, io.output);
    });

  // A command's own usage error points at its own help; serve's flags are in the top-level help.
  for (const command of program.commands)
    if (command !== serveCommand)
      command.showHelpAfterError(`(run mock-idp ${command.name()} --help for usage)`);

  // `mock-idp --help` shows the default command's flags too: they are what most users type.
  program.addHelpText('after', () => {
    const help = serveCommand.helpInformation();
    const options = help.slice(help.indexOf('Options:') + 'Options:'.length).trimEnd();
    return `\nOptions of serve (the default command):${options}\n\nRun mock-idp <command> --help for the options of a command.`;
  });

  return program;
}

/**
 * Commander suggests only for long flags: a short one that many tools use for the version (`-v`) gets
 * the hint here, in commander's own wording.
 */
function withShortFlagHint(message: string): string {
  return /^error: unknown option '-v'$/m.test(message)
    ? `${message.trimEnd()}\n(Did you mean -V or --version?)\n`
    : message;
}

/** The message for an operand where a command or a flag was meant: `chek` → check, `./users.yaml` → --fixtures. */
function notACommand(word: string, program: Command): string {
  const commands = program.commands.map((c) => c.name());
  const usage = '(run mock-idp --help for usage)';
  if (/[/\\]|\.(ya?ml|json)$/i.test(word) || existsSync(word))
    return `error: "${word}" is not a command (did you mean --fixtures ${word}?)\n${usage}`;
  const hint = didYouMean(word, commands, '');
  return `error: unknown command "${word}"${hint || ` (commands: ${commands.join(', ')})`}\n${usage}`;
}

/** Runs the CLI; resolves to an exit code for one-shot commands, or undefined while `serve` runs. */
export async function runCli(argv: string[], io: CliIo = defaultIo): Promise<number | undefined> {
  const outcome: CommandOutcome = { running: false };
  const program = buildProgram(io, outcome);
  // A first word that is no command would go to serve and fail on its flags (`tokn --client x`): say so first.
  const [first] = argv;
  const commands = new Set(['help', ...program.commands.map((c) => c.name())]);
  if (first !== undefined && !first.startsWith('-') && !commands.has(first)) {
    io.stderr(notACommand(first, program));
    return EXIT.usage;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return outcome.running ? undefined : EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    return reportError(err, io.stderr);
  }
}
