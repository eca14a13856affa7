import { getJson } from './http';

export interface WeatherReport {
  place: string;
  current: { tempC: number; description: string };
  days: { date: string; minC: number; maxC: number; description: string }[];
}

/** Where a skill gets the weather; null when the place is not found. */
export interface WeatherProvider {
  forecast(place: string): Promise<WeatherReport | null>;
}

/** WMO weather interpretation codes (what Open-Meteo's `weather_code` holds), in words. */
export const WMO_CODES: Readonly<Record<number, string>> = {
  0: 'clear sky',
  1: 'mainly clear',
  2: 'partly cloudy',
  3: 'overcast',
  45: 'fog',
  48: 'depositing rime fog',
  51: 'light drizzle',
  53: 'moderate drizzle',
  55: 'dense drizzle',
  56: 'light freezing drizzle',
  57: 'dense freezing drizzle',
  61: 'slight rain',
  63: 'moderate rain',
  65: 'heavy rain',
  66: 'light freezing rain',
  67: 'heavy freezing rain',
  71: 'slight snowfall',
  73: 'moderate snowfall',
  75: 'heavy snowfall',
  77: 'snow grains',
  80: 'slight rain showers',
  81: 'moderate rain showers',
  82: 'violent rain showers',
  85: 'slight snow showers',
  86: 'heavy snow showers',
  95: 'thunderstorm',
  96: 'thunderstorm with slight hail',
  99: 'thunderstorm with heavy hail',
};

export const weatherWords = (code: number | undefined): string =>
  (code !== undefined && WMO_CODES[code]) || 'unknown conditions';

interface GeocodingAnswer {
  results?: {
    name: string;
    latitude: number;
    longitude: number;
    country?: string;
    admin1?: string;
  }[];
}
interface ForecastAnswer {
  current?: { temperature_2m?: number; weather_code?: number };
  daily?: {
    time?: string[];
    weather_code?: number[];
    temperature_2m_max?: number[];
    temperature_2m_min?: number[];
  };
}

const round1 = (n: number | undefined) => Math.round((n ?? NaN) * 10) / 10;

/**
 * Open-Meteo's geocoding and forecast APIs (no key): the place's best match, its current
 * temperature and conditions and `days` days of minima, maxima and conditions in its own
 * time zone. Each request gets `timeoutMs`; a failure throws `ProviderUnavailable`.
 *
 * @example
 * const weather = new OpenMeteoWeather({
 *   geocodingUrl: 'https://geocoding-api.open-meteo.com/v1/search',
 *   forecastUrl: 'https://api.open-meteo.com/v1/forecast', timeoutMs: 5000 });
 * await weather.forecast('Lisbon'); // { place: 'Lisbon, Portugal', current: {…}, days: […] }
 */
export class OpenMeteoWeather implements WeatherProvider {
  constructor(
    private readonly o: {
      geocodingUrl: string;
      forecastUrl: string;
      timeoutMs: number;
      days?: number;
    },
  ) {}

  async forecast(place: string): Promise<WeatherReport | null> {
    const geo = new URL(this.o.geocodingUrl);
    geo.searchParams.set('name', place);
    geo.searchParams.set('count', '1');
    geo.searchParams.set('language', 'en');
    geo.searchParams.set('format', 'json');
    const found = (await getJson<GeocodingAnswer>('geocoding', geo, this.o.timeoutMs)).results?.[0];
    if (!found) return null;
    const url = new URL(this.o.forecastUrl);
    url.searchParams.set('latitude', String(found.latitude));
    url.searchParams.set('longitude', String(found.longitude));
    url.searchParams.set('current', 'temperature_2m,weather_code');
    url.searchParams.set('daily', 'weather_code,temperature_2m_max,temperature_2m_min');
    url.searchParams.set('timezone', 'auto');
    url.searchParams.set('forecast_days', String(this.o.days ?? 3));
    const f = await getJson<ForecastAnswer>('weather', url, this.o.timeoutMs);
    const d = f.daily ?? {};
    return {
      place: [found.name, found.admin1 !== found.name ? found.admin1 : undefined, found.country]
        .filter(Boolean)
        .join(', '),
      current: {
        tempC: round1(f.current?.temperature_2m),
        description: weatherWords(f.current?.weather_code),
      },
      days: (d.time ?? []).map((date, i) => ({
        date,
        minC: round1(d.temperature_2m_min?.[i]),
        maxC: round1(d.temperature_2m_max?.[i]),
        description: weatherWords(d.weather_code?.[i]),
      })),
    };
  }
}
