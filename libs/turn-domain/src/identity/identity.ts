import {
  AGENT_ID_PATTERN,
  AGENT_ID_RULE,
  INSTANCE_PATTERN,
  INSTANCE_RULE,
  MASTER_INSTANCE,
} from '@dirigent/contracts';
import type { AgentRef } from '../channel/types';
import type { Decision } from '../shared/result';
import { accept, assertNever, refuse } from '../shared/result';

export interface IdentityEntry {
  readonly discordUserId: string;
  readonly agentId: string;
  readonly agentName: string;
  /** The relay instance the agent is bound to (absent: the master); only it may act as the agent. */
  readonly instance?: string;
}

/** The whole registry: one aggregate, small enough to hold in one stream. */
export interface IdentityState {
  readonly entries: readonly IdentityEntry[];
}

export type IdentitySource = 'admin' | 'register' | 'file' | 'padded-cell';

export interface IdentityInput {
  readonly discordUserId: string;
  readonly agentId: string;
  readonly agentName?: string | null;
  /** `master` or absent: bound to the master. */
  readonly instance?: string | null;
}

type Cmd<T extends string, D> = { readonly type: T; readonly data: D };

/** Admin upsert (control page, `Subjects.admin.identityUpsert`). */
export type UpsertIdentity = Cmd<'UpsertIdentity', IdentityInput>;

/** Admin remove, by Discord user id or by agent id. */
export type RemoveIdentity = Cmd<'RemoveIdentity', { discordUserId?: string; agentId?: string }>;

/**
 * The `register` tool: an agent registers only itself. `agentId` may be omitted (it is the
 * caller); if given it must equal `callerAgentId`.
 */
export type RegisterIdentity = Cmd<
  'RegisterIdentity',
  {
    callerAgentId: string;
    agentId?: string;
    discordUserId: string;
    agentName?: string | null;
    /** The instance the request came from (stamped by NATS); absent: the master. */
    instance?: string;
  }
>;

/** Start-up import (JSON file, padded-cell `ego.json`): adds only what is not known yet. */
export type ImportIdentities = Cmd<
  'ImportIdentities',
  { source: 'file' | 'padded-cell'; entries: readonly IdentityInput[] }
>;

export type IdentityCommand = UpsertIdentity | RemoveIdentity | RegisterIdentity | ImportIdentities;

export type IdentityUpserted = {
  readonly type: 'IdentityUpserted';
  readonly data: IdentityEntry & { source: IdentitySource };
};

export type IdentityRemoved = {
  readonly type: 'IdentityRemoved';
  readonly data: { discordUserId: string; agentId: string; reason: 'admin' | 'replaced' };
};

export type IdentityEvent = IdentityUpserted | IdentityRemoved;

export const initialIdentityState = (): IdentityState => ({ entries: [] });

const SNOWFLAKE = /^\d{1,20}$/;
const MAX_NAME = 100;

/** Checks one entry; returns the normalised entry or the first field error. */
export function validateIdentity(
  input: IdentityInput,
): { ok: true; entry: IdentityEntry } | { ok: false; field: string; message: string } {
  const discordUserId = typeof input?.discordUserId === 'string' ? input.discordUserId.trim() : '';
  const agentId = typeof input?.agentId === 'string' ? input.agentId.trim() : '';
  if (!SNOWFLAKE.test(discordUserId)) {
    return { ok: false, field: 'discordUserId', message: 'discordUserId must be a snowflake' };
  }
  // The wire's rule: an id the registry accepts must also work in every subject and call.
  if (!AGENT_ID_PATTERN.test(agentId)) {
    return {
      ok: false,
      field: 'agentId',
      message: `agentId "${agentId}" must be ${AGENT_ID_RULE}`,
    };
  }
  const rawName = input.agentName;
  if (rawName !== undefined && rawName !== null && typeof rawName !== 'string') {
    return { ok: false, field: 'agentName', message: 'agentName must be a string' };
  }
  const agentName = (rawName ?? '').trim() || agentId;
  if (agentName.length > MAX_NAME) {
    return { ok: false, field: 'agentName', message: `agentName is over ${MAX_NAME} characters` };
  }
  const rawInstance = input.instance ?? MASTER_INSTANCE;
  if (typeof rawInstance !== 'string' || !INSTANCE_PATTERN.test(rawInstance)) {
    return { ok: false, field: 'instance', message: `instance must be ${INSTANCE_RULE}` };
  }
  const instance = rawInstance === MASTER_INSTANCE ? {} : { instance: rawInstance };
  return { ok: true, entry: { discordUserId, agentId, agentName, ...instance } };
}

export const findByDiscordUserId = (s: IdentityState, id: string): IdentityEntry | undefined =>
  s.entries.find((e) => e.discordUserId === id);

export const findByAgentId = (s: IdentityState, id: string): IdentityEntry | undefined =>
  s.entries.find((e) => e.agentId === id);

/** The instance an entry is bound to: its relay, or `master`. */
export const boundInstance = (e: Pick<IdentityEntry, 'instance'>): string =>
  e.instance ?? MASTER_INSTANCE;

/**
 * Filters channel members through the registry: the agents among them, in member order.
 *
 * @example
 * resolveAgents(registry, [{ userId: '111' }, { userId: '222' }]);
 * // → [{ agentId: 'home-developer', discordUserId: '111' }]
 */
export function resolveAgents(
  state: IdentityState,
  members: readonly { readonly userId: string }[],
): AgentRef[] {
  return members.flatMap((m) => {
    const e = findByDiscordUserId(state, m.userId);
    return e ? [{ agentId: e.agentId, discordUserId: e.discordUserId }] : [];
  });
}

/** Events that put `entry` in place, dropping whatever held its agent id elsewhere. */
function upsertEvents(
  state: IdentityState,
  entry: IdentityEntry,
  source: IdentitySource,
): IdentityEvent[] {
  const same = findByDiscordUserId(state, entry.discordUserId);
  if (
    same &&
    same.agentId === entry.agentId &&
    same.agentName === entry.agentName &&
    boundInstance(same) === boundInstance(entry)
  ) {
    return [];
  }
  const events: IdentityEvent[] = [];
  const previous = findByAgentId(state, entry.agentId);
  if (previous && previous.discordUserId !== entry.discordUserId) {
    events.push({
      type: 'IdentityRemoved',
      data: {
        discordUserId: previous.discordUserId,
        agentId: previous.agentId,
        reason: 'replaced',
      },
    });
  }
  events.push({ type: 'IdentityUpserted', data: { ...entry, source } });
  return events;
}

/**
 * Decides an identity registry command.
 *
 * @example
 * const d = decideIdentity(
 *   { type: 'RegisterIdentity', data: { callerAgentId: 'dev', discordUserId: '1234567' } },
 *   registry,
 * );
 * // d.ok && d.events → [{ type: 'IdentityUpserted', data: { agentId: 'dev', ... } }]
 */
export function decideIdentity(
  command: IdentityCommand,
  state: IdentityState,
): Decision<IdentityEvent> {
  switch (command.type) {
    case 'UpsertIdentity': {
      const v = validateIdentity(command.data);
      if (!v.ok) return refuse('BAD_REQUEST', v.message, { field: v.field });
      return accept(upsertEvents(state, v.entry, 'admin'));
    }
    case 'RegisterIdentity': {
      const { callerAgentId, agentId, discordUserId, agentName, instance } = command.data;
      if (typeof callerAgentId !== 'string' || callerAgentId.trim() === '') {
        return refuse('BAD_REQUEST', 'callerAgentId is required', { field: 'callerAgentId' });
      }
      if (agentId !== undefined && agentId !== callerAgentId) {
        return refuse('FORBIDDEN', 'an agent may only register itself', { agentId });
      }
      const v = validateIdentity({ discordUserId, agentId: callerAgentId, agentName, instance });
      if (!v.ok) return refuse('BAD_REQUEST', v.message, { field: v.field });
      const bound = findByAgentId(state, v.entry.agentId);
      if (bound && boundInstance(bound) !== boundInstance(v.entry)) {
        return refuse('FORBIDDEN', `agent ${bound.agentId} is bound to another instance`, {
          agentId: bound.agentId,
        });
      }
      const owner = findByDiscordUserId(state, v.entry.discordUserId);
      if (owner && owner.agentId !== v.entry.agentId) {
        return refuse('FORBIDDEN', 'that Discord user is registered to another agent', {
          discordUserId: v.entry.discordUserId,
        });
      }
      return accept(upsertEvents(state, v.entry, 'register'));
    }
    case 'RemoveIdentity': {
      const { discordUserId, agentId } = command.data;
      if (discordUserId === undefined && agentId === undefined) {
        return refuse('BAD_REQUEST', 'discordUserId or agentId is required', {
          field: 'discordUserId',
        });
      }
      const entry =
        discordUserId !== undefined
          ? findByDiscordUserId(state, discordUserId)
          : findByAgentId(state, agentId ?? '');
      if (!entry || (agentId !== undefined && entry.agentId !== agentId)) {
        return refuse('NOT_FOUND', 'no such identity', { discordUserId, agentId });
      }
      return accept([
        {
          type: 'IdentityRemoved',
          data: { discordUserId: entry.discordUserId, agentId: entry.agentId, reason: 'admin' },
        },
      ]);
    }
    case 'ImportIdentities': {
      if (!Array.isArray(command.data.entries)) {
        return refuse('BAD_REQUEST', 'entries[] is required', { field: 'entries' });
      }
      // Imports never override: entries edited by hand or registered by agents win.
      let current = state;
      const events: IdentityEvent[] = [];
      for (const input of command.data.entries) {
        const v = validateIdentity(input);
        if (!v.ok) continue;
        if (findByDiscordUserId(current, v.entry.discordUserId)) continue;
        if (findByAgentId(current, v.entry.agentId)) continue;
        const event: IdentityEvent = {
          type: 'IdentityUpserted',
          data: { ...v.entry, source: command.data.source },
        };
        events.push(event);
        current = evolveIdentity(current, event);
      }
      return accept(events);
    }
    default:
      return assertNever(command);
  }
}

/**
 * @example
 * const registry = storedEvents.reduce(evolveIdentity, initialIdentityState());
 */
export function evolveIdentity(state: IdentityState, event: IdentityEvent): IdentityState {
  switch (event.type) {
    case 'IdentityUpserted': {
      const { discordUserId, agentId, agentName, instance } = event.data;
      const entry: IdentityEntry = {
        discordUserId,
        agentId,
        agentName,
        ...(instance ? { instance } : {}),
      };
      const index = state.entries.findIndex((e) => e.discordUserId === discordUserId);
      if (index < 0) return { entries: [...state.entries, entry] };
      const entries = [...state.entries];
      entries[index] = entry;
      return { entries };
    }
    case 'IdentityRemoved':
      return {
        entries: state.entries.filter((e) => e.discordUserId !== event.data.discordUserId),
      };
    default:
      return assertNever(event);
  }
}

/**
 * Reads a padded-cell `ego.json`. `present` is false (skip auto-registration entirely)
 * unless `columns` includes `discord-id`; the agent name defaults to the agent id.
 */
export function parseEgoJson(raw: unknown): { present: boolean; entries: IdentityInput[] } {
  if (!isRecord(raw) || !Array.isArray(raw.columns) || !raw.columns.includes('discord-id')) {
    return { present: false, entries: [] };
  }
  const scope = isRecord(raw.agentScope) ? raw.agentScope : {};
  const entries: IdentityInput[] = [];
  for (const [agentId, columns] of Object.entries(scope)) {
    if (!isRecord(columns)) continue;
    const id = columns['discord-id'];
    if (typeof id === 'string' && id.trim() !== '') {
      entries.push({ agentId, discordUserId: id.trim(), agentName: agentId });
    }
  }
  return { present: true, entries };
}

/** Reads an identity file: an array of entries, or `{ entries: [...] }`. */
export function parseIdentityFile(raw: unknown): IdentityInput[] {
  const list = Array.isArray(raw) ? raw : isRecord(raw) ? raw.entries : undefined;
  if (!Array.isArray(list)) return [];
  return list.filter(isRecord).map((e) => ({
    discordUserId: String(e.discordUserId ?? ''),
    agentId: String(e.agentId ?? ''),
    agentName: typeof e.agentName === 'string' ? e.agentName : null,
  }));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
