import { ROUTER_TRIGGERS, type RouterDecision } from '@dirigent/contracts';
import type { GuildView } from './control-data';
import { esc } from './html';
import type { DecisionsView, MemoryView } from './insight-data';
import { layout, pageHeader, tabsNav } from './page';

const time = (iso: string | null | undefined) =>
  iso ? esc(iso.replace('T', ' ').slice(0, 19)) : '—';

function options(values: [string, string][], chosen: string | undefined): string {
  return values
    .map(
      ([v, text]) =>
        `<option value="${esc(v)}"${v === (chosen ?? '') ? ' selected' : ''}>${esc(text)}</option>`,
    )
    .join('');
}

function guildSelect(guilds: readonly GuildView[], guildId: string): string {
  return `<label for="f-guild">Guild<select id="f-guild" name="guild">${options(
    guilds.map((g) => [g.guildId, g.name]),
    guildId,
  )}</select></label>`;
}

function channelName(guilds: readonly GuildView[], channelId: string | undefined): string {
  for (const g of guilds) {
    const c = g.channels.find((x) => x.channelId === channelId);
    if (c) return `#${c.name}`;
  }
  return channelId ? `#${channelId}` : '';
}

function page(body: string): string {
  return layout('Dirigent — control page', `${pageHeader()}\n<main>${body}</main>`);
}

const noGuild = '<p class="muted">The moderator bot is in no guild.</p>';

/** The memory tab: one guild's live window, epochs, highlights, dossiers and a search. */
export function memoryPage(guilds: readonly GuildView[], m: MemoryView | null): string {
  const where = (channelId?: string, authorId?: string) =>
    `<span class="meta">${esc(channelName(guilds, channelId))}${authorId ? ` · <code>${esc(authorId)}</code>` : ''}</span>`;
  const item = (i: { channelId?: string; authorId?: string; text: string; at: string }) =>
    `<li>${where(i.channelId, i.authorId)} <span class="meta">${time(i.at)}</span><br>${esc(i.text)}</li>`;
  const list = (id: string, items: string[], empty: string) =>
    `<ol class="items" id="${id}">${items.length ? items.join('') : `<li class="muted">${esc(empty)}</li>`}</ol>`;
  const body = !m
    ? noGuild
    : `<form class="filters" method="get" action="/dirigent" role="search">
<input type="hidden" name="tab" value="memory">${guildSelect(guilds, m.guildId)}
<label for="memory-q">Search memory<input id="memory-q" name="q" type="search" value="${esc(m.query)}" maxlength="2000" placeholder="what did … say about …"></label>
<button type="submit" class="primary">Search</button></form>
${m.error ? `<p class="error" role="alert" id="memory-error">Memory did not answer (${esc(m.error)}).</p>` : ''}
${
  m.hits
    ? `<h3>Search results for “${esc(m.query)}”</h3>${list(
        'memory-hits',
        m.hits.map(
          (h) =>
            `<li><span class="badge">${esc(h.layer)}</span> <span class="meta">score ${h.score.toFixed(4)}</span> ${where(h.channelId, h.authorId)} <span class="meta">${time(h.at)}</span><br>${esc(h.text)}</li>`,
        ),
        'Nothing found.',
      )}`
    : ''
}
<h3>Live window</h3>${list('memory-live', m.live.map(item), 'No messages yet.')}
<h3>Epochs</h3>${list(
        'memory-epochs',
        m.epochs.map(
          (e) =>
            `<li><span class="meta">${esc(channelName(guilds, e.channelId))} · ${time(e.startAt)} – ${time(e.endAt)} · ${e.messageCount} messages · ${e.participants.length} people</span><br>${esc(e.summary || '(no summary)')}${e.topics.length ? `<br><span class="meta">topics: ${esc(e.topics.join(', '))}</span>` : ''}</li>`,
        ),
        'No closed epochs.',
      )}
<h3>Highlights</h3>${list('memory-highlights', m.highlights.map(item), 'No highlights.')}
<h3>Dossiers</h3>${list(
        'memory-dossiers',
        m.dossiers.map(
          (d) =>
            `<li><code>${esc(d.userId)}</code> <span class="meta">${d.messageCount} messages · last seen ${time(d.lastSeenAt)}</span>${d.body ? `<br>${esc(d.body)}` : ''}</li>`,
        ),
        'No dossiers for the people in the live window.',
      )}`;
  return page(
    `${tabsNav('memory')}<section aria-labelledby="h-memory"><h2 id="h-memory">Memory</h2>${body}</section>`,
  );
}

/** "Why did this run": the reactor job, its trigger (and a composite's members), cause and parent. */
function lineage(l: NonNullable<RouterDecision['lineage']>): string {
  const via = l.via ? ` (${esc(l.via.join(', '))})` : '';
  const parent = l.parentId
    ? ` · scheduled by <a href="#decision-${esc(l.parentId)}"><code>${esc(l.parentId)}</code></a>`
    : '';
  return `<dt>Why</dt><dd data-field="lineage">${esc(l.job)} · ${esc(l.trigger)}${via} · cause <code>${esc(l.causeId)}</code>${parent}</dd>`;
}

function decisionCard(d: RouterDecision, guilds: readonly GuildView[]): string {
  const scores = [...d.candidates]
    .sort((a, b) => b.score - a.score)
    .map(
      (c) =>
        `<li${c.dispositionId === d.chosen ? ' class="chosen"' : ''}>${esc(c.dispositionId)} ${c.score.toFixed(3)}</li>`,
    )
    .join('');
  const beats = d.beats.length
    ? `<ol>${d.beats.map((b) => `<li>${esc(b.text)}${b.isCorrection ? ' <span class="muted">(correction)</span>' : ''}</li>`).join('')}</ol>`
    : d.reaction
      ? `reaction ${esc(d.reaction)}`
      : '<span class="muted">none (silent)</span>';
  return `<article class="decision" id="decision-${esc(d.decisionId)}" data-chosen="${esc(d.chosen)}">
<div class="meta">${time(d.at)} · ${esc(channelName(guilds, d.channelId))} · agent <code>${esc(d.agentId)}</code></div>
<dl><dt>Chosen</dt><dd data-field="chosen"><strong>${esc(d.chosen)}</strong> <span class="muted">(${esc(d.dimensions.outputShape)}, ${esc(d.dimensions.voice)}, ${esc(d.dimensions.contextStrategy)})</span></dd>
<dt>Trigger</dt><dd data-field="trigger">${esc(d.trigger)}${d.interrupted ? ` · interrupted at beat ${d.interrupted.atBeat} (${esc(d.interrupted.action)})` : ''}</dd>
${d.lineage ? lineage(d.lineage) : ''}
<dt>Seed</dt><dd data-field="seed"><code>${esc(d.seed)}</code></dd>
<dt>Scores</dt><dd><ul class="scores" data-field="scores">${scores}</ul></dd>
<dt>Latency</dt><dd data-field="latency">${d.latencyMs} ms</dd>
<dt>Cost</dt><dd data-field="cost">$${d.costUsd.toFixed(6)}</dd>
<dt>Models</dt><dd data-field="models">${d.models.length ? esc(d.models.join(', ')) : '<span class="muted">none</span>'}</dd>
${d.subagents.length ? `<dt>Research</dt><dd>${esc(d.subagents.join(', '))}</dd>` : ''}
${d.followup ? `<dt>Follow-up</dt><dd>${esc(d.followup.bias)} at ${time(d.followup.dueAt)}</dd>` : ''}
<dt>Beats</dt><dd data-field="beats">${beats}</dd></dl></article>`;
}

/** The decision-log tab: the router's decisions of one guild, filtered. */
export function decisionsPage(guilds: readonly GuildView[], v: DecisionsView | null): string {
  let body = noGuild;
  if (v) {
    const f = v.filter;
    const guild = guilds.find((g) => g.guildId === f.guildId);
    const channels: [string, string][] = [
      ['', 'all channels'],
      ...(guild?.channels ?? []).map((c): [string, string] => [c.channelId, `#${c.name}`]),
    ];
    if (f.channelId && !channels.some(([id]) => id === f.channelId))
      channels.push([f.channelId, `#${f.channelId}`]);
    body = `<form class="filters" method="get" action="/dirigent">
<input type="hidden" name="tab" value="decisions">${guildSelect(guilds, f.guildId)}
<label for="f-channel">Channel<select id="f-channel" name="channel">${options(channels, f.channelId)}</select></label>
<label for="f-disposition">Disposition<input id="f-disposition" name="disposition" value="${esc(f.dispositionId ?? '')}" maxlength="64" placeholder="any"></label>
<label for="f-trigger">Trigger<select id="f-trigger" name="trigger">${options(
      [['', 'any'], ...ROUTER_TRIGGERS.map((t): [string, string] => [t, t])],
      f.trigger,
    )}</select></label>
<button type="submit" class="primary">Filter</button></form>
${v.error ? `<p class="error" role="alert" id="decisions-error">The router did not answer (${esc(v.error)}).</p>` : ''}
<div id="decision-rows">${
      v.decisions.length
        ? v.decisions.map((d) => decisionCard(d, guilds)).join('')
        : '<p class="muted">No decisions.</p>'
    }</div>`;
  }
  return page(
    `${tabsNav('decisions')}<section aria-labelledby="h-decisions"><h2 id="h-decisions">Decision log</h2>${body}</section>`,
  );
}
