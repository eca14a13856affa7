import {
  Subjects,
  type PersonaHistoryResult,
  type MemoryContextItem,
  type MemoryContextResult,
  type MemoryDossier,
  type MemoryEpoch,
  type MemoryHit,
  type Reply,
  type RouterDecision,
} from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import { ReplyFailure } from './control-data';
import type { PersonasTab, PersonaView } from './persona-page';

/** Dossiers shown per guild: the authors of the live window, most recent first. */
const DOSSIERS = 8;

/** The memory tab of one guild, read from the memory service over NATS. */
export interface MemoryView {
  guildId: string;
  /** Set when memory did not answer (or refused): the tab says so. */
  error: string | null;
  live: MemoryContextItem[];
  epochs: MemoryEpoch[];
  highlights: MemoryContextItem[];
  dossiers: MemoryDossier[];
  query: string;
  hits: MemoryHit[] | null;
}

export interface DecisionFilter {
  guildId: string;
  channelId?: string;
  dispositionId?: string;
  trigger?: string;
}

export interface DecisionsView {
  filter: DecisionFilter;
  error: string | null;
  decisions: RouterDecision[];
}

const section = (r: MemoryContextResult, layer: string) =>
  r.sections.find((s) => s.layer === layer)?.items ?? [];

/**
 * What the memory and decision-log tabs read: `dirigent.memory.*` (the live window, the
 * strongest highlights, epochs, dossiers of the live window's authors, a search) and
 * `Subjects.router.decisionsList`. Every read is request/reply; a service that does not
 * answer is reported, not hidden.
 */
export class InsightData {
  constructor(
    private readonly messaging: Messaging,
    private readonly timeoutMs = 5000,
  ) {}

  private async call<T>(subj: string, data: unknown): Promise<T> {
    const reply: Reply<T> = await this.messaging.request<T>(subj, data, this.timeoutMs);
    if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
    return reply.data;
  }

  /** `channelId` anchors the guild-wide live window (the lens weights that channel). */
  async memory(guildId: string, channelId: string | undefined, query: string): Promise<MemoryView> {
    const view: MemoryView = {
      guildId,
      error: null,
      live: [],
      epochs: [],
      highlights: [],
      dossiers: [],
      query,
      hits: null,
    };
    const context = (strategy: string) =>
      channelId
        ? this.call<MemoryContextResult>(Subjects.memory.context, {
            guildId,
            channelId,
            strategy,
            maxTokens: 8000,
          })
        : Promise.resolve<MemoryContextResult>({
            strategy: 'none',
            sections: [],
            text: '',
            tokens: 0,
          });
    try {
      const [live, primed, epochs, search] = await Promise.all([
        context('live'),
        context('callback-primed'),
        this.call<{ epochs: MemoryEpoch[] }>(Subjects.memory.epochsList, { guildId, limit: 20 }),
        query
          ? this.call<{ hits: MemoryHit[] }>(Subjects.memory.search, { guildId, query, k: 20 })
          : Promise.resolve(null),
      ]);
      view.live = section(live, 'live');
      view.highlights = section(primed, 'highlights');
      view.epochs = epochs.epochs;
      view.hits = search?.hits ?? null;
      const authors = [
        ...new Set(view.live.flatMap((i) => (i.authorId ? [i.authorId] : [])).reverse()),
      ].slice(0, DOSSIERS);
      view.dossiers = await Promise.all(
        authors.map((userId) =>
          this.call<MemoryDossier>(Subjects.memory.dossierGet, { guildId, userId }),
        ),
      );
    } catch (e) {
      view.error = (e as Error).message;
    }
    return view;
  }

  async decisions(filter: DecisionFilter): Promise<DecisionsView> {
    try {
      const { decisions } = await this.call<{ decisions: RouterDecision[] }>(
        Subjects.router.decisionsList,
        { ...filter, limit: 100 },
      );
      return { filter, error: null, decisions };
    } catch (e) {
      return { filter, error: (e as Error).message, decisions: [] };
    }
  }

  /** The persona tab: every agent's active persona, and the chosen one's history. */
  async personas(agentId: string): Promise<PersonasTab> {
    try {
      const { personas } = await this.call<{ personas: PersonaView[] }>(
        Subjects.admin.personaList,
        {},
      );
      const selected = personas.find((p) => p.agentId === agentId) ?? personas[0] ?? null;
      const history = selected
        ? await this.call<PersonaHistoryResult>(Subjects.admin.personaHistory, {
            agentId: selected.agentId,
          })
        : null;
      return { error: null, personas, selected, history };
    } catch (e) {
      return { error: (e as Error).message, personas: [], selected: null, history: null };
    }
  }

  /** `Subjects.admin.personaRollback`, its refusal kept as a reply failure (status and fields). */
  async rollbackPersona(agentId: string, version: unknown): Promise<PersonaView> {
    const reply: Reply<PersonaView> = await this.messaging.request<PersonaView>(
      Subjects.admin.personaRollback,
      { agentId, version },
      this.timeoutMs,
    );
    if (!reply.ok)
      throw new ReplyFailure(reply.error.code, reply.error.message, reply.error.details);
    return reply.data;
  }
}
