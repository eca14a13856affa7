/** A Discord API error answer: HTTP status and Discord's JSON error code. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export const notFound = (what: string, code: number) => new HttpError(404, code, `Unknown ${what}`);
