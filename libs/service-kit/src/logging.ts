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
