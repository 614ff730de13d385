// Logging: levels, and one concise line per request. Never secrets, assertions or whole tokens.

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  level: LogLevel;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** A logger writing info/debug to stdout and warn/error to stderr. */
export function createLogger(
  level: LogLevel = 'info',
  out: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
  err: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Logger {
  const logger: Logger = {
    level,
    debug: (m) => RANK[logger.level] <= RANK.debug && out(m),
    info: (m) => RANK[logger.level] <= RANK.info && out(m),
    warn: (m) => RANK[logger.level] <= RANK.warn && err(m),
    error: (m) => RANK[logger.level] <= RANK.error && err(m),
  } as Logger;
  return logger;
}
