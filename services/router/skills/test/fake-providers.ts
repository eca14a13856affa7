import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Open-Meteo's geocoding and forecast, and Tenor's v2 search, at the wire; "Slowtown" hangs. */
export class FakeProviders {
  readonly seen: URL[] = [];
  private server!: Server;
  baseUrl = '';

  static async start(): Promise<FakeProviders> {
    const f = new FakeProviders();
    f.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://fake');
      f.seen.push(url);
      const json = (body: unknown, status = 200) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (url.pathname === '/v1/search') {
        const name = url.searchParams.get('name');
        // Answers after the skill gave up (bounded: the server closes with the test).
        if (name === 'Slowtown') return void setTimeout(() => json({ results: [] }), 2000);
        if (name !== 'Lisbon') return json({ generationtime_ms: 0.3 });
        return json({
          results: [
            {
              id: 2267057,
              name: 'Lisbon',
              latitude: 38.71667,
              longitude: -9.13333,
              country: 'Portugal',
              admin1: 'Lisbon',
              timezone: 'Europe/Lisbon',
            },
          ],
          generationtime_ms: 0.5,
        });
      }
      if (url.pathname === '/v1/forecast')
        return json({
          latitude: 38.7,
          longitude: -9.14,
          timezone: 'Europe/Lisbon',
          current_units: { temperature_2m: '°C', weather_code: 'wmo code' },
          current: {
            time: '2026-03-27T10:00',
            interval: 900,
            temperature_2m: 17.84,
            weather_code: 2,
          },
          daily_units: { temperature_2m_max: '°C' },
          daily: {
            time: ['2026-03-27', '2026-03-28', '2026-03-29'],
            weather_code: [2, 61, 0],
            temperature_2m_max: [19.2, 16.1, 21],
            temperature_2m_min: [11.4, 10.9, 12.3],
          },
        });
      if (url.pathname === '/v2/search') {
        if (url.searchParams.get('key') !== 'tenor-test-key') return json({ error: 'key' }, 401);
        return json({
          results: [
            {
              id: '1',
              url: 'https://tenor.example/view/1',
              media_formats: {
                gif: { url: `https://media.example/${url.searchParams.get('q')}.gif` },
              },
            },
          ],
        });
      }
      json({ error: 'not found' }, 404);
    });
    await new Promise<void>((r) => f.server.listen(0, '127.0.0.1', r));
    f.baseUrl = `http://127.0.0.1:${(f.server.address() as AddressInfo).port}`;
    return f;
  }

  async close() {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}
