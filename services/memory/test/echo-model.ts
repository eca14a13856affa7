import {
  Streams,
  Subjects,
  subject,
  type MemoryContextResult,
  type MemoryDossier,
  type MemoryEpoch,
  type MemorySearchResult,
} from '@dirigent/contracts';
import { FakeUpstream, type Seen } from '../../llm-gateway/test/fake-upstreams';
import { startGateway, type RunningGateway } from '../../llm-gateway/test/harness';
import type { MemoryHarness } from './harness';

/**
 * A model (a fake OpenAI upstream behind the real gateway) that writes memory's summaries,
 * topics, lore and dossier bodies FROM the text it is given, word for word: whatever a
 * deleted message said shows up in every layer written from it, until that layer is
 * written again without it.
 */
export function echoAnswer(seen: Seen): string {
  const messages = (seen.body.messages ?? []) as { role: string; content: string }[];
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  const user = messages.find((m) => m.role === 'user')?.content ?? '';
  const lines = user.split('\n').filter((l) => /^[^:\s][^:]*: /.test(l));
  if (system.includes('Summarise one finished conversation')) {
    const words = [...new Set(user.toLowerCase().match(/[a-z]{7,}/g) ?? [])];
    return JSON.stringify({
      summary: `They talked: ${lines.join(' / ')}`,
      topics: words.slice(0, 8),
      lore: lines.length ? [`The group keeps coming back to ${lines.join(' and ')}`] : [],
    });
  }
  if (system.includes('dossier')) {
    return JSON.stringify({ body: `Lately: ${lines.join(' / ')}`, signals: { tone: 'warm' } });
  }
  return '{"disclosure": true, "score": 3}';
}

export interface EchoModel {
  upstream: FakeUpstream;
  gateway: RunningGateway;
  close(): Promise<void>;
}

/** The fake upstream and a gateway routing memory's purposes to it. */
export function startEchoModel(): Promise<EchoModel> {
  return startFakeModel((seen) => ({ kind: 'ok', text: echoAnswer(seen) }));
}

/** A fake OpenAI upstream answering as `behave` says, behind a gateway routing memory's purposes. */
export async function startFakeModel(behave: FakeUpstream['behave']): Promise<EchoModel> {
  const upstream = await FakeUpstream.start('openai');
  upstream.behave = behave;
  const fake = { model: 'fake' };
  const gateway = await startGateway({
    providers: [
      { id: 'fake', kind: 'openai', baseUrl: upstream.baseUrl, apiKeyEnv: 'TEST_OPENAI_KEY' },
    ],
    models: [
      {
        id: 'fake',
        provider: 'fake',
        upstream: 'fake-1',
        inputUsdPerMTok: 0,
        outputUsdPerMTok: 0,
        contextWindow: 128000,
      },
    ],
    purposes: { 'epoch-summarize': fake, extract: fake, memory: fake, rerank: fake },
    budgets: { defaultGuildUsdPerDay: 100 },
    reliability: { timeoutMs: 10_000, retries: 0, backoffBaseMs: 10, backoffMaxMs: 40 },
  });
  return {
    upstream,
    gateway,
    close: async () => {
      await gateway.close();
      await upstream.close();
    },
  };
}

/** Every `epoch.closed` event the stream still holds for a channel. */
export async function epochEventsOf(h: MemoryHarness, guildId: string, channelId: string) {
  const subj = subject.memoryEvent(guildId, channelId, 'epoch.closed');
  const jsm = h.messaging.client.jsm;
  const info = await jsm.streams.info(Streams.memoryEvents, { subjects_filter: subj });
  const out: string[] = [];
  if (!info.state.subjects?.[subj]) return out;
  let seq = 0;
  for (;;) {
    const m = await jsm.streams
      .getMessage(Streams.memoryEvents, { next_by_subj: subj, seq: seq + 1 } as never)
      .catch(() => null);
    if (!m) return out;
    out.push(new TextDecoder().decode(m.data));
    seq = m.seq;
  }
}

/**
 * Where memory still holds `needle` (case-insensitive) or, given `userId`, that user: the
 * names of the layers, empty when none does.
 */
export async function layersHolding(
  h: MemoryHarness,
  guildId: string,
  channelId: string,
  needle: string,
  userId?: string,
): Promise<string[]> {
  const has = (s: unknown) => {
    const json = JSON.stringify(s) ?? '';
    return json.toLowerCase().includes(needle.toLowerCase()) || (!!userId && json.includes(userId));
  };
  const held: string[] = [];
  const { epochs } = await h.ok<{ epochs: MemoryEpoch[] }>(Subjects.memory.epochsList, {
    guildId,
  });
  for (const e of epochs) {
    if (has(e.summary)) held.push('epoch summary');
    if (has(e.topics)) held.push('epoch topics');
    if (userId && e.participants.includes(userId)) held.push('epoch participants');
  }
  const search = await h.ok<MemorySearchResult>(Subjects.memory.search, {
    guildId,
    query: needle,
    k: 50,
  });
  for (const hit of search.hits) if (has(hit.text) || has(hit.authorId)) held.push(hit.layer);
  for (const strategy of ['live+lore+dossiers', 'full-rich', 'epochs-only']) {
    const c = await h.ok<MemoryContextResult>(Subjects.memory.context, {
      guildId,
      channelId,
      strategy,
      maxTokens: 20_000,
    });
    for (const s of c.sections)
      if (has(s.items.map((i) => i.text))) held.push(`${strategy}:${s.layer}`);
  }
  for (const ev of await epochEventsOf(h, guildId, channelId)) {
    if (has(JSON.parse(ev).data)) held.push('epoch.closed event');
  }
  return [...new Set(held)];
}

/** The dossier bodies of the users that hold the needle. */
export async function dossiersHolding(
  h: MemoryHarness,
  guildId: string,
  userIds: string[],
  needle: string,
): Promise<string[]> {
  const out: string[] = [];
  for (const userId of userIds) {
    const d = await h.ok<MemoryDossier>(Subjects.memory.dossierGet, { guildId, userId });
    if (d.body.toLowerCase().includes(needle.toLowerCase())) out.push(userId);
  }
  return out;
}
