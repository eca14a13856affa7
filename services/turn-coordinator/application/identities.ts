import { readFile } from 'node:fs/promises';
import { Injectable, Logger } from '@nestjs/common';
import {
  Aggregates,
  MASTER_INSTANCE,
  subject,
  type IdentityEntry as WireIdentity,
} from '@dirigent/contracts';
import { CommandHandler, EventStore } from '@dirigent/event-store';
import {
  boundInstance,
  decideIdentity,
  evolveIdentity,
  findByAgentId,
  findByDiscordUserId,
  initialIdentityState,
  parseEgoJson,
  parseIdentityFile,
  resolveAgents,
  validateIdentity,
  type AgentRef,
  type IdentityInput,
  type IdentityCommand,
  type IdentityEntry,
  type IdentityEvent,
  type IdentityState,
} from '@dirigent/turn-domain';
import { RefusedError } from './channels';

export const IDENTITY_SUBJECT = subject.aggregate(Aggregates.identity, 'registry');

export const toWire = (e: IdentityEntry): WireIdentity => ({
  discordUserId: e.discordUserId,
  agentId: e.agentId,
  agentName: e.agentName,
  ...(e.instance ? { instance: e.instance } : {}),
});

/** The identity registry aggregate: Discord user id ↔ agent id ↔ agent name. */
@Injectable()
export class Identities {
  private readonly log = new Logger('identities');
  private readonly handler: CommandHandler<IdentityCommand, IdentityEvent, IdentityState>;

  constructor(private readonly store: EventStore) {
    this.handler = new CommandHandler(store, {
      initialState: initialIdentityState,
      decide: (command, state) => {
        const decision = decideIdentity(command, state);
        if (!decision.ok) throw new RefusedError(decision.error);
        return [...decision.events];
      },
      evolve: evolveIdentity,
    });
  }

  /** The registry, checked against the event store's latest version first (admin reads). */
  async freshState(): Promise<IdentityState> {
    const cached = await this.handler.state(IDENTITY_SUBJECT);
    if ((await this.store.version(IDENTITY_SUBJECT)) === cached.version) return cached.state;
    this.handler.invalidate(IDENTITY_SUBJECT);
    return this.state();
  }

  async state(): Promise<IdentityState> {
    return (await this.handler.state(IDENTITY_SUBJECT)).state;
  }

  /** Drops the cached registry when it is older than `version` (another replica wrote). */
  /** The registry is read again on next use (commits may have been missed). */
  invalidateAll(): void {
    this.handler.invalidate(IDENTITY_SUBJECT);
  }

  async invalidateIfBehind(version: number): Promise<void> {
    // No read: a registry already due to be caught up is read once, when next used.
    const cached = this.handler.cachedVersion(IDENTITY_SUBJECT);
    if (cached !== undefined && cached < version) this.handler.invalidate(IDENTITY_SUBJECT);
  }

  /** Like {@link Channels.execute}: a refusal is re-decided once on fresh state if stale. */
  async execute(command: IdentityCommand): Promise<IdentityState> {
    try {
      return (await this.handler.handle(IDENTITY_SUBJECT, command)).state;
    } catch (e) {
      if (!(e instanceof RefusedError)) throw e;
      const cached = await this.handler.state(IDENTITY_SUBJECT);
      if ((await this.store.version(IDENTITY_SUBJECT)) === cached.version) throw e;
      this.handler.invalidate(IDENTITY_SUBJECT);
      return (await this.handler.handle(IDENTITY_SUBJECT, command)).state;
    }
  }

  async byDiscordUserId(id: string): Promise<IdentityEntry | undefined> {
    return (
      findByDiscordUserId(await this.state(), id) ??
      this.retryFresh((s) => findByDiscordUserId(s, id))
    );
  }

  async byAgentId(id: string): Promise<IdentityEntry | undefined> {
    return findByAgentId(await this.state(), id) ?? this.retryFresh((s) => findByAgentId(s, id));
  }

  /**
   * Refuses (`FORBIDDEN`) unless `agentId` is registered and bound to `instance`: an agent on
   * one relay cannot act as an agent of another relay or of the master. The master may act
   * for any agent that is not bound to a relay (the agents it runs, or not registered yet).
   */
  async assertActsFor(agentId: string, instance: string): Promise<void> {
    const entry = await this.byAgentId(agentId);
    if (instance === MASTER_INSTANCE && (!entry || boundInstance(entry) === MASTER_INSTANCE)) {
      return;
    }
    const refusal = !entry
      ? `agent ${agentId} is not registered: register it from this instance first`
      : boundInstance(entry) !== instance
        ? `agent ${agentId} is bound to another instance`
        : undefined;
    if (refusal) {
      throw new RefusedError({ code: 'FORBIDDEN', message: refusal, details: { agentId } });
    }
  }

  /** A miss is checked once against the latest registry: another replica may have written. */
  private async retryFresh<T>(find: (s: IdentityState) => T | undefined): Promise<T | undefined> {
    const cached = await this.handler.state(IDENTITY_SUBJECT);
    if ((await this.store.version(IDENTITY_SUBJECT)) === cached.version) return undefined;
    this.handler.invalidate(IDENTITY_SUBJECT);
    return find(await this.state());
  }

  /** The registered agents among Discord users, in their order. */
  async resolve(userIds: readonly string[]): Promise<AgentRef[]> {
    const members = userIds.map((userId) => ({ userId }));
    const cached = await this.handler.state(IDENTITY_SUBJECT);
    const agents = resolveAgents(cached.state, members);
    if (agents.length === members.length) return agents;
    // Someone unknown: make sure no other replica registered them a moment ago.
    return (await this.retryFresh((s) => resolveAgents(s, members))) ?? agents;
  }

  /** Imports the identity file and padded-cell's `ego.json`; absent files are fine. */
  async importFiles(files: { identityFile?: string; egoFile?: string }): Promise<number> {
    let imported = 0;
    const identityJson = await readJson(files.identityFile);
    if (identityJson !== undefined) {
      const entries = this.refuseInvalid(parseIdentityFile(identityJson), files.identityFile);
      const before = (await this.state()).entries.length;
      const after = await this.execute({
        type: 'ImportIdentities',
        data: { source: 'file', entries },
      });
      imported += after.entries.length - before;
    }
    const egoJson = await readJson(files.egoFile);
    if (egoJson !== undefined) {
      const ego = parseEgoJson(egoJson);
      if (ego.present) {
        const before = (await this.state()).entries.length;
        const after = await this.execute({
          type: 'ImportIdentities',
          data: { source: 'padded-cell', entries: this.refuseInvalid(ego.entries, files.egoFile) },
        });
        imported += after.entries.length - before;
      } else {
        this.log.log({ file: files.egoFile }, 'ego.json has no discord-id column; skipped');
      }
    }
    return imported;
  }

  /** Entries that break the agent-id (or user-id) rule are named in the log, not registered. */
  private refuseInvalid<T extends IdentityInput>(entries: readonly T[], file?: string): T[] {
    return entries.filter((entry) => {
      const v = validateIdentity(entry);
      if (!v.ok) this.log.warn({ file, field: v.field }, `identity not imported: ${v.message}`);
      return v.ok;
    });
  }
}

async function readJson(path: string | undefined): Promise<unknown> {
  if (!path) return undefined;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${path} is not valid JSON`);
  }
}
