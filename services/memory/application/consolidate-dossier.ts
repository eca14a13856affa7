import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  quotesForgotten,
  scrubForgotten,
  shouldConsolidate,
  type ConsolidationState,
  type Forgotten,
} from '@dirigent/memory-domain';
import { declareJob, all, event, predicate, Reactor, type DeclaredJob } from '@dirigent/reactor';
import { Clock } from '@dirigent/service-kit';
import { DossierRepository } from '../adapters/postgres/dossier.repository';
import { MessageRepository } from '../adapters/postgres/message.repository';
import type { Row } from '../adapters/postgres/sql';
import { SUMMARIZER, type Summarizer } from './ports';
import { RedactionQueue } from './redaction-queue';

const SYSTEM = `You maintain a short dossier about one member of a Discord community.
Answer with JSON only: {"body": "<at most 80 words: stable facts, declared preferences, how they relate to others>",
"signals": {"topics": ["..."], "tone": "..."}}. Use only what the messages say.`;

/** In process: a user's messages were counted in their dossier (never on the wire). */
const COUNTED = 'memory.dossier-counted';

interface Counted {
  guildId: string;
  userId: string;
  counters: Row;
}

/**
 * The reactor job `dossier-consolidation`: when messages are counted AND enough new
 * material accumulated (`shouldConsolidate` over the counters), the dossier's curated body
 * comes from the model (purpose `extract`).
 */
@Injectable()
export class ConsolidateDossier {
  private readonly log = new Logger('memory:dossier');

  constructor(
    private readonly dossiers: DossierRepository,
    private readonly messages: MessageRepository,
    @Inject(SUMMARIZER) private readonly model: Summarizer,
    private readonly clock: Clock,
    private readonly reactor: Reactor,
    private readonly redactions: RedactionQueue,
  ) {}

  /** The reactor job `dossier-consolidation` (registered from the service's `reactor-jobs.ts`). */
  jobs(): DeclaredJob[] {
    return [
      declareJob<Counted, ConsolidationState>({
        name: 'dossier-consolidation',
        trigger: all<ConsolidationState>(
          event({ type: COUNTED }),
          predicate('enough-new-material', (s) => shouldConsolidate(s)),
        ),
        snapshot: ({ counters }) => ({
          messagesSince: counters.messages_since,
          charsSince: counters.chars_since,
          lastConsolidatedAt: counters.last_consolidated_at
            ? new Date(counters.last_consolidated_at).getTime()
            : undefined,
          now: this.clock.now(),
        }),
        run: ({ guildId, userId }) =>
          this.run(guildId, userId).catch((e: Error) => this.log.warn(e.message)),
      }),
    ];
  }

  /**
   * Offers the counted messages to the reactor. `causeId` names them in the job's lineage
   * (default: the user and their count since the last consolidation).
   */
  async maybe(guildId: string, userId: string, counters: Row, causeId?: string): Promise<void> {
    const data: Counted = { guildId, userId, counters };
    await this.reactor.offer({
      kind: 'event',
      id: causeId ?? `${guildId}:${userId}:${counters.messages_since}`,
      subject: COUNTED,
      type: COUNTED,
      data,
    });
  }

  /**
   * Writes the dossier's body from the user's recent messages and current facts, and the
   * previous body unless `fresh` (a rebuild after a deletion: the previous body may hold
   * the deleted text). The body keeps the ids of the messages it drew on; a message
   * deleted while the model was writing is caught after the save and redacted. After a
   * `forget`, the `forgotten` user's names are left out of what the model reads and of
   * the body it writes, and so are the messages that quote them.
   */
  async run(guildId: string, userId: string, fresh = false, forgotten?: Forgotten): Promise<void> {
    const scrub = (t: string) => (forgotten ? scrubForgotten(t, forgotten) : t);
    const [recent, facts, dossier] = await Promise.all([
      this.messages.recent(guildId, { authorId: userId, limit: 40 }),
      this.dossiers.facts(guildId, [userId], true),
      this.dossiers.get(guildId, userId),
    ]);
    if (!dossier) return;
    const name = dossier.user_name ?? userId;
    const known = facts.map((f) => scrub(`${name} ${f.statement}`));
    // A message quoting the forgotten user is left out: their words are not the author's.
    const told = forgotten ? recent.filter((m) => !quotesForgotten(m.text, forgotten)) : recent;
    const transcript = [...told].reverse().map((m) => `${name}: ${scrub(m.text)}`);
    const previous = fresh ? '' : (dossier.body ?? '');
    const answer = await this.model.complete(
      guildId,
      'extract',
      SYSTEM,
      [`Known facts:`, ...known, '', `Previous dossier: ${previous}`, '', ...transcript].join('\n'),
    );
    const parsed = parseDossier(answer);
    // Without a usable answer (the offline model) the body is the current facts, which is
    // what a dossier must carry anyway.
    const fallback = known.length ? `${known.join('. ')}.` : previous;
    let body = scrub(parsed?.body ?? fallback);
    if (forgotten && quotesForgotten(body, forgotten)) body = fallback;
    const signals = {
      ...(parsed?.signals ?? {}),
      facts: facts.map((f) => ({ key: f.key, value: f.value })),
    };
    const sources = [
      ...new Set([
        ...recent.map((m) => m.id),
        ...facts.flatMap((f) => (f.sourceMessageId ? [f.sourceMessageId] : [])),
        ...(fresh ? [] : ((dossier.body_source_ids as string[] | undefined) ?? [])),
      ]),
    ].slice(0, 2000);
    const at = new Date(this.clock.now());
    await this.dossiers.saveConsolidation(guildId, userId, body, signals, at, sources);
    const deleted = await this.messages.tombstoned(guildId, sources);
    if (deleted.length) {
      await this.redactions.enqueue({
        id: `dossier:${guildId}:${userId}:${at.getTime()}`,
        guildId,
        messageIds: deleted,
        authorIds: [userId],
      });
    }
  }
}

export function parseDossier(
  text: string | null,
): { body: string; signals: Record<string, unknown> } | null {
  const json = text?.match(/\{[\s\S]*\}/)?.[0];
  if (!json) return null;
  try {
    const v = JSON.parse(json) as { body?: unknown; signals?: unknown };
    if (typeof v.body !== 'string' || !v.body.trim()) return null;
    const signals =
      typeof v.signals === 'object' && v.signals !== null
        ? (v.signals as Record<string, unknown>)
        : {};
    return { body: v.body.trim(), signals };
  } catch {
    return null;
  }
}
