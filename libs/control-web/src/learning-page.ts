import {
  CONTEXT_CLASSES,
  type LearningEngagement,
  type LearningHistoryResult,
} from '@dirigent/contracts';
import { esc } from './html';
import { learnedWeightsSvg } from './learning-chart';
import type { LearningTab } from './learning-data';
import { layout, pageHeader, tabsNav } from './page';

const pct = (n: number, of: number) => (of ? `${Math.round((100 * n) / of)}%` : '—');

/** The latest effective weight of a (class, disposition), or its baseline when learning never moved it. */
function learned(h: LearningHistoryResult, e: LearningEngagement): string {
  const last = h.steps.filter(
    (s) => s.contextClass === e.contextClass && s.dispositionId === e.dispositionId,
  );
  const w = last.length ? last[last.length - 1].effective : (h.baseline[e.dispositionId] ?? 1);
  return `${w.toFixed(3)}${last.length ? '' : ' <span class="muted">(baseline)</span>'}`;
}

function engagementRows(h: LearningHistoryResult): string {
  if (!h.engagement.length)
    return '<tr><td colspan="8" class="muted">No turn and no signal in this guild yet.</td></tr>';
  const order = (c: string) => CONTEXT_CLASSES.indexOf(c as never);
  return [...h.engagement]
    .sort((a, b) => order(a.contextClass) - order(b.contextClass))
    .map(
      (e) =>
        `<tr data-class="${esc(e.contextClass)}" data-disposition="${esc(e.dispositionId)}"><td>${esc(e.contextClass)}</td><td><code>${esc(e.dispositionId)}</code></td><td data-field="posts">${e.posts}</td><td data-field="engaged">${pct(e.engaged, e.posts)}</td><td data-field="ignored">${pct(e.ignored, e.posts)}</td><td data-field="negative">${pct(e.negative, e.posts)}</td><td data-field="weight">${learned(h, e)}</td><td data-field="signals">${
          Object.entries(e.signals)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([k, n]) => `${esc(k)} ${n}`)
            .join(', ') || '<span class="muted">none</span>'
        }</td></tr>`,
    )
    .join('');
}

function whatIfForm(t: LearningTab): string {
  const p = t.persona!;
  const ids = [...new Set([...t.dispositions, ...Object.keys(p.dispositionWeights)])].sort();
  const inputs = ids
    .map((id) => {
      const w = p.dispositionWeights[id] ?? 1;
      return `<label for="w-${esc(id)}"><code>${esc(id)}</code><input id="w-${esc(id)}" type="text" inputmode="decimal" size="6" data-disposition="${esc(id)}" data-initial="${w}" value="${w}" aria-describedby="err-w-${esc(id)}"><span class="error" id="err-w-${esc(id)}"></span></label>`;
    })
    .join('');
  return `<form id="whatif" class="filters" data-guild="${esc(t.guildId ?? '')}" data-agent="${esc(p.agentId)}" novalidate>
<fieldset id="whatif-weights" class="weights"><legend>Candidate weights of <code>${esc(p.agentId)}</code> (prefilled with its persona's)</legend>${inputs}</fieldset>
<label for="whatif-last">Last N decisions<input id="whatif-last" type="text" inputmode="numeric" size="5" value="100" aria-describedby="err-whatif-last"><span class="error" id="err-whatif-last"></span></label>
<button type="button" class="primary" data-action="whatif-run">Run what-if</button>
<button type="button" data-action="whatif-save">Save weights</button></form>
<p class="error" id="whatif-error" role="alert"></p><p id="whatif-saved" role="status"></p>
<div id="whatif-result" aria-live="polite"></div>`;
}

/**
 * The learning tab (`/dirigent?tab=learning&guild=…&agent=…`): per context class and
 * disposition the turns that posted and how they were taken, the learned weight over time
 * as charts, and the what-if replay of the guild's last decisions under candidate weights
 * with **Save weights** (the persona's next version).
 */
export function learningPage(t: LearningTab): string {
  let body: string;
  if (!t.guildId) body = '<p class="muted">The moderator bot is in no guild.</p>';
  else if (t.error)
    body = `<p class="error" role="alert" id="learning-error">The router did not answer (${esc(t.error)}).</p>`;
  else if (!t.persona || !t.history) body = '<p class="muted">No persona is stored yet.</p>';
  else {
    const h = t.history;
    const opt = (v: string, text: string, on: boolean) =>
      `<option value="${esc(v)}"${on ? ' selected' : ''}>${esc(text)}</option>`;
    body = `<form class="filters" method="get" action="/dirigent"><input type="hidden" name="tab" value="learning">
<label for="f-guild">Guild<select id="f-guild" name="guild">${t.guilds.map((g) => opt(g.guildId, g.name, g.guildId === t.guildId)).join('')}</select></label>
<label for="f-agent">Agent<select id="f-agent" name="agent">${t.agents.map((a) => opt(a.agentId, a.agentId, a.agentId === t.persona!.agentId)).join('')}</select></label>
<button type="submit" class="primary">Show</button></form>
<h3>Engagement by room mood</h3>
<p class="muted">A turn that posted is engaged when a member's positive signal on it stands, ignored when the room judged it so, negative when a member's negative signal stands. The learned weight is the one the last step left (before decay). Bounds ${h.bounds[0]} – ${h.bounds[1]}.</p>
<table id="engagement"><thead><tr><th scope="col">Mood</th><th scope="col">Disposition</th><th scope="col">Posts</th><th scope="col">Engaged</th><th scope="col">Ignored</th><th scope="col">Negative</th><th scope="col">Learned weight</th><th scope="col">Signals</th></tr></thead>
<tbody>${engagementRows(h)}</tbody></table>
<h3>Learned weight over time</h3>${CONTEXT_CLASSES.map((c) => `<h4>${c}</h4>${learnedWeightsSvg(h, c)}`).join('\n')}
<h3>What if</h3><p class="muted">Replays the guild's last decisions of this agent with these weights in place of those each decision read (learning included) and counts the choices that change.</p>
${whatIfForm(t)}`;
  }
  return layout(
    'Dirigent — control page',
    `${pageHeader()}\n<main>${tabsNav('learning')}<section aria-labelledby="h-learning"><h2 id="h-learning">Learning</h2>${body}</section></main>`,
    true,
  );
}
