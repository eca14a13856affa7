import { getJson } from './http';

/** Where a skill finds a GIF; null when nothing matches. */
export interface GifProvider {
  search(query: string): Promise<string | null>;
}

export const GIF_PROVIDERS = ['tenor', 'giphy'] as const;
export type GifProviderName = (typeof GIF_PROVIDERS)[number];

const DEFAULT_URLS: Record<GifProviderName, string> = {
  tenor: 'https://tenor.googleapis.com/v2/search',
  giphy: 'https://api.giphy.com/v1/gifs/search',
};

interface TenorAnswer {
  results?: { url?: string; media_formats?: Record<string, { url?: string }> }[];
}
interface GiphyAnswer {
  data?: { url?: string; images?: Record<string, { url?: string }> }[];
}

/**
 * A GIF search on Tenor's v2 or Giphy's API with a key, filtered for a general audience
 * (Tenor `contentfilter=medium`, Giphy `rating=pg`); `url` overrides the provider's search
 * endpoint. The first result's GIF URL, or null.
 *
 * @example
 * await new HttpGifSearch({ provider: 'tenor', apiKey, timeoutMs: 5000 }).search('happy cat');
 */
export class HttpGifSearch implements GifProvider {
  constructor(
    private readonly o: {
      provider: GifProviderName;
      apiKey: string;
      url?: string;
      timeoutMs: number;
    },
  ) {}

  async search(query: string): Promise<string | null> {
    const url = new URL(this.o.url || DEFAULT_URLS[this.o.provider]);
    url.searchParams.set('q', query);
    url.searchParams.set('limit', '1');
    if (this.o.provider === 'tenor') {
      url.searchParams.set('key', this.o.apiKey);
      url.searchParams.set('media_filter', 'gif');
      url.searchParams.set('contentfilter', 'medium');
      const first = (await getJson<TenorAnswer>('tenor', url, this.o.timeoutMs)).results?.[0];
      return first?.media_formats?.gif?.url ?? first?.url ?? null;
    }
    url.searchParams.set('api_key', this.o.apiKey);
    url.searchParams.set('rating', 'pg');
    const first = (await getJson<GiphyAnswer>('giphy', url, this.o.timeoutMs)).data?.[0];
    return first?.images?.original?.url ?? first?.url ?? null;
  }
}
