import { SETTABLE_MODES, type IdentityEntry } from '@dirigent/contracts';
import type { ChannelInfo, DeadLetter, GuildsView } from './control-data';
import { esc } from './html';
import { renderTimelineSvg, TIMELINE_COLORS, TIMELINE_LEGEND } from './timeline-svg';

const STYLE = `
:root{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#111827;background:#f9fafb}
body{margin:0}
header{display:flex;justify-content:space-between;align-items:center;gap:1rem;padding:.75rem 1rem;background:#111827;color:#fff}
header h1{font-size:1.2rem;margin:0}
main{max-width:1240px;margin:0 auto;padding:1rem}
section{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:1rem;margin-bottom:1rem;overflow-x:auto}
h2{font-size:1.1rem;margin:0 0 .75rem}
h3{font-size:1rem;margin:1rem 0 .5rem}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.35rem .4rem;border-bottom:1px solid #e5e7eb;vertical-align:top}
input,select,button{font:inherit;padding:.3rem .45rem;border:1px solid #9ca3af;border-radius:4px;background:#fff;color:inherit}
button{cursor:pointer;background:#f3f4f6}
button.primary{background:#1d4ed8;color:#fff;border-color:#1d4ed8}
button.danger{color:#b91c1c;border-color:#b91c1c}
:focus-visible{outline:3px solid #f59e0b;outline-offset:1px}
.badge{display:inline-block;padding:.1rem .5rem;border-radius:999px;font-size:.85rem;background:#e5e7eb}
.badge.mode-chat{background:#dbeafe}.badge.mode-report{background:#dcfce7}.badge.mode-work{background:#fef3c7}.badge.mode-discussion{background:#ede9fe}
.badge.locked::after{content:" · locked"}
header button{color:#111827}
.error{color:#b91c1c;margin:.25rem 0 0;font-size:.9rem;min-height:1em}
.muted{color:#6b7280}
.channel{border-top:1px solid #e5e7eb;padding:.75rem 0}
.channel-head{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}
.channel-head .name{font-weight:600}
.controls{display:flex;flex-wrap:wrap;gap:.5rem 1rem;margin:.5rem 0}
.controls label{display:flex;gap:.35rem;align-items:center}
dl.state{display:grid;grid-template-columns:max-content 1fr;gap:.15rem .75rem;margin:.5rem 0}
dl.state dt{color:#6b7280}dl.state dd{margin:0}
.timeline-wrap{overflow-x:auto;border:1px solid #f3f4f6;border-radius:4px}
.legend{display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:.85rem;margin:.5rem 0}
.legend span::before{content:"";display:inline-block;width:.8em;height:.8em;margin-right:.3em;background:var(--c);border-radius:2px}
.login{max-width:26rem;margin:4rem auto}
.login form{display:flex;flex-direction:column;gap:.75rem}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
nav.tabs{display:flex;flex-wrap:wrap;gap:.25rem;margin:0 0 1rem}
nav.tabs a{padding:.35rem .75rem;border:1px solid #d1d5db;border-radius:6px;color:#1d4ed8;text-decoration:none;background:#fff}
nav.tabs a[aria-current="page"]{background:#1d4ed8;color:#fff;border-color:#1d4ed8}
form.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:flex-end;margin:0 0 .75rem}
form.filters label{display:flex;flex-direction:column;gap:.2rem;font-size:.9rem;max-width:100%}
form.filters input,form.filters select{max-width:100%;box-sizing:border-box}
ul.items,ol.items{list-style:none;margin:0;padding:0}
.items li,.decision{border-top:1px solid #e5e7eb;padding:.45rem 0;overflow-wrap:anywhere}
.items .meta,.decision .meta{font-size:.85rem;color:#6b7280}
.decision dl{display:grid;grid-template-columns:max-content 1fr;gap:.15rem .75rem;margin:.35rem 0}
.decision dt{color:#6b7280}.decision dd{margin:0;overflow-wrap:anywhere}
.scores{display:flex;flex-wrap:wrap;gap:.25rem;margin:0;padding:0;list-style:none}
.scores li{padding:.05rem .4rem;border-radius:4px;background:#f3f4f6;font-size:.85rem}
.scores li.chosen{background:#dbeafe;font-weight:600}
code{overflow-wrap:anywhere}
fieldset.weights{display:flex;flex-wrap:wrap;gap:.4rem 1rem;border:1px solid #e5e7eb;border-radius:6px}
fieldset.weights label{display:flex;flex-direction:column;gap:.15rem;font-size:.85rem}
@media (max-width:640px){
  .id-table thead{display:none}
  .id-table tr{display:block;border-bottom:1px solid #e5e7eb;padding:.5rem 0}
  .id-table td{display:block;border:0;padding:.2rem 0}
  .id-table input{width:100%;box-sizing:border-box}
  main{padding:.5rem}
}
`;

export function layout(title: string, body: string, script = false): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style></head><body>${body}
${script ? '<script src="/dirigent/app.js" defer></script>' : ''}</body></html>`;
}

/** The login form (also shown, with status 401, to anyone without a session). */
export function loginPage(error: string | null): string {
  return layout(
    'Dirigent — sign in',
    `<main class="login"><section><h1>Dirigent control page</h1>
<form method="post" action="/dirigent/login">
<label for="token">Control token (<code>DIRIGENT_CONTROL_TOKEN</code>)</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button class="primary" type="submit">Sign in</button>
<p class="error" role="alert" id="login-error">${esc(error ?? '')}</p>
</form></section></main>`,
  );
}

/** Shown with status 503 when no token is configured: the page is off, nothing is served. */
export function disabledPage(): string {
  return layout(
    'Dirigent — control page disabled',
    `<main class="login"><section><h1>Control page disabled</h1>
<p>Set <code>DIRIGENT_CONTROL_TOKEN</code> (at least 16 characters) on the turn coordinator
and restart it to use the control page.</p></section></main>`,
  );
}

const nameOf = (ids: Map<string, string>, agentId: string | null) =>
  agentId ? (ids.get(agentId) ?? agentId) : '—';

/** The identity registry's rows (swapped live). */
export function identityRows(entries: readonly IdentityEntry[]): string {
  if (!entries.length) {
    return `<tr><td colspan="4" class="muted">No identities registered yet.</td></tr>`;
  }
  return entries
    .map((e) => {
      const k = esc(e.discordUserId);
      return `<tr data-user="${k}" id="id-${k}">
<td><span class="visually-hidden">Discord user id </span><code>${k}</code></td>
<td><label class="visually-hidden" for="agent-${k}">Agent id of ${k}</label>
<input id="agent-${k}" name="agentId" value="${esc(e.agentId)}" required maxlength="64"></td>
<td><label class="visually-hidden" for="name-${k}">Agent name of ${k}</label>
<input id="name-${k}" name="agentName" value="${esc(e.agentName ?? '')}" maxlength="80"></td>
<td><button type="button" data-action="save-identity" data-user="${k}">Save</button>
<button type="button" class="danger" data-action="delete-identity" data-user="${k}">Delete</button>
<p class="error" role="alert" id="err-${k}"></p></td></tr>`;
    })
    .join('');
}

function identitySection(entries: readonly IdentityEntry[], egoDetected: boolean): string {
  return `<section aria-labelledby="h-identities"><h2 id="h-identities">Identity registry</h2>
${
  egoDetected
    ? `<p><button type="button" data-action="rescan">Re-scan padded-cell</button> <span id="rescan-status" role="status" class="muted"></span></p>`
    : ''
}
<table class="id-table"><thead><tr><th scope="col">Discord user id</th><th scope="col">Agent id</th><th scope="col">Agent name</th><th scope="col">Actions</th></tr></thead>
<tbody id="identity-rows">${identityRows(entries)}</tbody>
<tbody><tr id="identity-add">
<td><label class="visually-hidden" for="new-user">New Discord user id</label><input id="new-user" name="discordUserId" placeholder="Discord user id" inputmode="numeric"></td>
<td><label class="visually-hidden" for="new-agent">New agent id</label><input id="new-agent" name="agentId" placeholder="agent id"></td>
<td><label class="visually-hidden" for="new-name">New agent name</label><input id="new-name" name="agentName" placeholder="agent name (optional)"></td>
<td><button type="button" class="primary" data-action="add-identity">Add</button><p class="error" role="alert" id="err-new"></p></td>
</tr></tbody></table></section>`;
}

function select(
  id: string,
  label: string,
  action: string,
  options: [string, string][],
  value: string,
  data: string,
) {
  return `<label for="${id}">${esc(label)}
<select id="${id}" data-action="${action}" ${data}>${options
    .map(
      ([v, text]) =>
        `<option value="${esc(v)}"${v === value ? ' selected' : ''}>${esc(text)}</option>`,
    )
    .join('')}</select></label>`;
}

/** One channel: badge, controls, turn state and timeline (swapped live). */
export function channelBlock(c: ChannelInfo, names: Map<string, string>): string {
  const v = c.view;
  const id = esc(c.channelId);
  const data = `data-channel="${id}" data-guild="${esc(c.guildId)}"`;
  const locked = v.mode === 'work' || v.mode === 'discussion';
  const modeControl = locked
    ? `<span class="muted">mode fixed at creation</span>`
    : select(
        `mode-${id}`,
        'Mode',
        'set-mode',
        SETTABLE_MODES.map((m) => [m, m]),
        v.mode,
        data,
      );
  const speakers = v.speakers.length
    ? `<ol class="speakers">${v.speakers
        .map(
          (s) =>
            `<li${s === v.currentSpeaker ? ' aria-current="true"' : ''}>${esc(nameOf(names, s))}</li>`,
        )
        .join('')}</ol>`
    : '<span class="muted">none</span>';
  return `<article class="channel" id="ch-${id}" ${data} aria-labelledby="chn-${id}">
<div class="channel-head"><span class="name" id="chn-${id}">#${esc(c.name)}</span>
<span class="badge mode-${esc(v.mode)}${locked ? ' locked' : ''}" data-field="mode">${esc(v.mode)}</span>
${c.private ? '<span class="muted">private</span>' : ''}</div>
<div class="controls">${modeControl}
${select(
  `shuffle-${id}`,
  'Shuffle',
  'set-shuffle',
  [
    ['auto', 'auto (by agent count)'],
    ['on', 'on'],
    ['off', 'off'],
  ],
  v.shuffle === null ? 'auto' : v.shuffle ? 'on' : 'off',
  data,
)}
${select(
  `wake-${id}`,
  'Wake by',
  'set-wake-mode',
  [
    ['both', 'grant + Discord ping'],
    ['granted', 'turn-granted event'],
    ['discord', 'Discord ping'],
  ],
  v.wakeMode,
  data,
)}
<button type="button" data-action="advance" ${data}${v.currentSpeaker ? '' : ' disabled'} title="Skip the current speaker now">Skip speaker</button>
</div>
<p class="error" role="alert" id="err-ch-${id}"></p>
<dl class="state">
<dt>Turn manager</dt><dd data-field="tmState">${esc(v.tmState)}</dd>
<dt>Current speaker</dt><dd data-field="currentSpeaker">${esc(nameOf(names, v.currentSpeaker))}${v.awaitingDelivery ? ' <span class="muted">(delivering)</span>' : ''}</dd>
<dt>Dormant</dt><dd data-field="dormant">${v.dormant ? `yes${v.dormantReason ? ` (${esc(v.dormantReason)})` : ''}` : 'no'}</dd>
<dt>Cycle</dt><dd>${v.cycle}${v.multiMessage ? ' · multi-message' : ''}</dd>
<dt>Speaker order</dt><dd data-field="speakers">${speakers}</dd>
</dl>
${c.known ? `<div class="timeline-wrap">${renderTimelineSvg(c.timeline, `#${c.name}`, names)}</div>` : ''}
</article>`;
}

function guildSection(view: GuildsView, names: Map<string, string>): string {
  const guilds = view.guilds
    .map(
      (
        g,
      ) => `<div class="guild" id="guild-${esc(g.guildId)}"><h3>${esc(g.name)} <span class="muted">(${esc(g.guildId)})</span></h3>
${g.channels.length ? g.channels.map((c) => channelBlock(c, names)).join('') : '<p class="muted">No text channels.</p>'}</div>`,
    )
    .join('');
  const legend = TIMELINE_LEGEND.map(
    ([k, text]) => `<span style="--c:${TIMELINE_COLORS[k]}">${esc(text)}</span>`,
  ).join('');
  return `<section aria-labelledby="h-guilds"><h2 id="h-guilds">Guilds and channels</h2>
<p id="live-status" role="status" class="muted">connecting to live updates…</p>
${view.discordError ? `<p class="error" role="alert">Discord ingest did not answer (${esc(view.discordError)}); only channels Dirigent knows are listed.</p>` : ''}
${guilds || '<p class="muted">The moderator bot is in no guild.</p>'}
<div class="legend" aria-label="Timeline legend">${legend}</div></section>`;
}

/** The dead-letter list (swapped after a re-drive or a discard). */
export function deadLetterRows(letters: readonly DeadLetter[]): string {
  if (!letters.length) return `<tr><td colspan="5" class="muted">No dead letters.</td></tr>`;
  return letters
    .map(
      (
        d,
      ) => `<tr><td>${d.seq}</td><td><code>${esc(d.subject)}</code><br><span class="muted">${esc(d.durable)} · ${d.deliveries} deliveries</span></td>
<td>${esc(d.error)}</td><td><details><summary>payload</summary><pre>${esc(d.payload.slice(0, 2000))}</pre></details></td>
<td><button type="button" data-action="redrive" data-seq="${d.seq}">Re-drive #${d.seq}</button> <button type="button" data-action="discard" data-seq="${d.seq}">Discard #${d.seq}</button><p class="error" role="alert" id="err-dl-${d.seq}"></p></td></tr>`,
    )
    .join('');
}

export interface ControlPageModel {
  identities: IdentityEntry[];
  egoDetected: boolean;
  guilds: GuildsView;
  deadLetters: DeadLetter[];
}

export const agentNames = (entries: readonly IdentityEntry[]) =>
  new Map(entries.map((e) => [e.agentId, e.agentName ?? e.agentId]));

export const TABS = [
  ['channels', 'Channels', '/dirigent'],
  ['memory', 'Memory', '/dirigent?tab=memory'],
  ['decisions', 'Decision log', '/dirigent?tab=decisions'],
  ['personas', 'Personas', '/dirigent?tab=personas'],
  ['learning', 'Learning', '/dirigent?tab=learning'],
] as const;
export type Tab = (typeof TABS)[number][0];

export const pageHeader = () =>
  `<header><h1>Dirigent</h1><form method="post" action="/dirigent/logout"><button type="submit">Sign out</button></form></header>`;

/** Links between the page's tabs (plain links: every tab is rendered by the server). */
export function tabsNav(active: Tab): string {
  return `<nav class="tabs" aria-label="Control page">${TABS.map(
    ([id, text, href]) =>
      `<a href="${href}" id="tab-${id}"${id === active ? ' aria-current="page"' : ''}>${esc(text)}</a>`,
  ).join('')}</nav>`;
}

/** The whole control page, server-rendered; `app.js` adds the live updates and the actions. */
export function controlPage(m: ControlPageModel): string {
  const names = agentNames(m.identities);
  return layout(
    'Dirigent — control page',
    `${pageHeader()}
<main>${tabsNav('channels')}
${identitySection(m.identities, m.egoDetected)}
${guildSection(m.guilds, names)}
<section aria-labelledby="h-dl"><h2 id="h-dl">Dead letters</h2>
<table><thead><tr><th scope="col">#</th><th scope="col">Subject</th><th scope="col">Error</th><th scope="col">Payload</th><th scope="col">Action</th></tr></thead>
<tbody id="dead-letter-rows">${deadLetterRows(m.deadLetters)}</tbody></table></section></main>`,
    true,
  );
}
