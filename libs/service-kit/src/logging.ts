import type { DestinationStream } from 'pino';

/** Paths pino replaces with `[redacted]`: secrets never reach the logs. */
export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  '*.token',
  '*.apiKey',
  '*.password',
  '*.DISCORD_TOKEN',
  '*.DATABASE_URL',
];

/** Replaces a URL's password with `***` for log lines. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable url)';
  }
}

/**
 * Where log lines go: human-readable (pino-pretty, in-process) when stdout is a terminal,
 * JSON lines otherwise (containers, CI, files). `LOG_FORMAT=json|pretty` forces either.
 */
export function logDestination(
  env: NodeJS.ProcessEnv = process.env,
  stdout: { isTTY?: boolean } = process.stdout,
): DestinationStream | undefined {
  const format = env.LOG_FORMAT ?? (stdout.isTTY ? 'pretty' : 'json');
  if (format !== 'pretty') return undefined;
  // Loaded only for a terminal: a service in a container does not load it on every start.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const PinoPretty = require('pino-pretty') as typeof import('pino-pretty');
  return PinoPretty({
    colorize: true,
    sync: true,
    translateTime: 'HH:MM:ss.l',
    ignore: 'pid,hostname',
  });
}
