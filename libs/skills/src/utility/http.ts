/** The provider did not answer in time or at all, or answered with an error status. */
export class ProviderUnavailable extends Error {
  constructor(
    readonly provider: string,
    readonly reason: 'timeout' | 'unreachable' | 'status',
    detail: string,
  ) {
    super(`${provider} ${reason}: ${detail}`);
  }
}

/** GET a JSON document within `timeoutMs`; every failure is a {@link ProviderUnavailable}. */
export async function getJson<T>(provider: string, url: URL, timeoutMs: number): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: 'application/json' },
    });
  } catch (e) {
    const err = e as Error;
    const timedOut = err.name === 'TimeoutError' || err.name === 'AbortError';
    throw new ProviderUnavailable(provider, timedOut ? 'timeout' : 'unreachable', err.message);
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    throw new ProviderUnavailable(provider, 'status', `HTTP ${res.status}`);
  }
  try {
    return (await res.json()) as T;
  } catch (e) {
    const err = e as Error;
    const timedOut = err.name === 'TimeoutError' || err.name === 'AbortError';
    throw new ProviderUnavailable(provider, timedOut ? 'timeout' : 'status', err.message);
  }
}
