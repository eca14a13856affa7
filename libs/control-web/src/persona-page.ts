import type { PersonaHistoryResult, PersonaVersionInfo } from '@dirigent/contracts';
import { esc } from './html';
import { layout, pageHeader, tabsNav } from './page';
import { weightsChartSvg } from './persona-chart';

/** A built-in agent's active persona as `Subjects.admin.personaList` gives it. */
export interface PersonaView {
  agentId: string;
  version: number;
  cause: string;
  at: string;
  voices: { eligible: string[]; never: string[] };
  bannedPhrases: string[];
  neverDo: string[];
  toneBounds?: { formality: [number, number]; energy: [number, number] };
  dispositionWeights: Record<string, number>;
  learning: { enabled: boolean; rate: number; bounds: [number, number] };
}

export interface PersonasTab {
  error: string | null;
  personas: PersonaView[];
  selected: PersonaView | null;
  history: PersonaHistoryResult | null;
}

const time = (iso: string) => esc(iso.replace('T', ' ').slice(0, 19));
const list = (xs: readonly string[]) =>
  xs.length
    ? xs.map((x) => `<code>${esc(x)}</code>`).join(', ')
    : '<span class="muted">none</span>';
const range = (r: readonly number[]) => `${r[0]} – ${r[1]}`;

function fields(p: PersonaView): string {
  const weights = Object.entries(p.dispositionWeights);
  return `<dl class="state" id="persona-fields" data-version="${p.version}">
<dt>Version</dt><dd data-field="version">${p.version} <span class="muted">(${esc(p.cause)}, ${time(p.at)})</span></dd>
<dt>Eligible voices</dt><dd data-field="eligible">${p.voices.eligible.length ? list(p.voices.eligible) : '<span class="muted">all</span>'}</dd>
<dt>Never voices</dt><dd data-field="never">${list(p.voices.never)}</dd>
<dt>Banned phrases</dt><dd data-field="banned">${list(p.bannedPhrases)}</dd>
<dt>Never do</dt><dd data-field="never-do">${list(p.neverDo)}</dd>
<dt>Tone bounds</dt><dd data-field="tone">${p.toneBounds ? `formality ${range(p.toneBounds.formality)}, energy ${range(p.toneBounds.energy)}` : '<span class="muted">none</span>'}</dd>
<dt>Disposition weights</dt><dd data-field="weights">${weights.length ? weights.map(([id, w]) => `<code>${esc(id)}</code> ${w}`).join(', ') : '<span class="muted">all 1</span>'}</dd>
<dt>Learning</dt><dd data-field="learning">${p.learning.enabled ? 'on' : '<strong>frozen</strong>'} · rate ${p.learning.rate} · bounds ${range(p.learning.bounds)}</dd></dl>`;
}

function versionRows(agentId: string, active: number, versions: readonly PersonaVersionInfo[]) {
  return [...versions]
    .reverse()
    .map(
      (v) =>
        `<tr id="persona-v${v.version}"><td>${v.version}</td><td>${time(v.at)}</td><td>${esc(v.cause)}${v.causeId ? ` <code>${esc(v.causeId)}</code>` : ''}</td><td>${
          v.version === active
            ? '<span class="badge">active</span>'
            : `<button type="button" data-action="rollback-persona" data-agent="${esc(agentId)}" data-version="${v.version}">Roll back to v${v.version}</button>`
        }</td></tr>`,
    )
    .join('');
}

function signalRows(h: PersonaHistoryResult): string {
  if (!h.signals.length) return '<tr><td colspan="6" class="muted">No signals yet.</td></tr>';
  return h.signals
    .map(
      (s) =>
        `<tr data-signal="${esc(s.signal)}"><td>${time(s.at)}</td><td><code>${esc(s.messageId)}</code></td><td>${esc(s.signal)}</td><td>${s.polarity === 'positive' ? '👍 positive' : '👎 negative'}</td><td>${esc(s.dispositionId)}</td><td>${s.from === s.to ? `${s.from} <span class="muted">(unmoved)</span>` : `${s.from} → ${s.to}`}${s.version ? ` <span class="muted">v${s.version}</span>` : ''}</td></tr>`,
    )
    .join('');
}

/** The persona tab: each built-in agent's fields, its versions with rollback, the weights chart and the signals. */
export function personasPage(t: PersonasTab): string {
  let body: string;
  if (t.error) {
    body = `<p class="error" role="alert" id="personas-error">The router did not answer (${esc(t.error)}).</p>`;
  } else if (!t.selected || !t.history) {
    body = '<p class="muted">No persona is stored yet.</p>';
  } else {
    const p = t.selected;
    const h = t.history;
    body = `<form class="filters" method="get" action="/dirigent">
<input type="hidden" name="tab" value="personas">
<label for="f-agent">Agent<select id="f-agent" name="agent">${t.personas
      .map(
        (x) =>
          `<option value="${esc(x.agentId)}"${x.agentId === p.agentId ? ' selected' : ''}>${esc(x.agentId)}</option>`,
      )
      .join('')}</select></label><button type="submit" class="primary">Show</button></form>
<h3>Active persona of <code>${esc(p.agentId)}</code></h3>${fields(p)}
<h3>Weights over time</h3>${weightsChartSvg(h.versions)}
<h3>Versions</h3><p class="error" id="persona-error" role="alert"></p>
<table><thead><tr><th scope="col">Version</th><th scope="col">At</th><th scope="col">Cause</th><th scope="col">Action</th></tr></thead>
<tbody id="persona-versions">${versionRows(p.agentId, p.version, h.versions)}</tbody></table>
<h3>Signals that moved the weights</h3>
<table><thead><tr><th scope="col">At</th><th scope="col">Message</th><th scope="col">Signal</th><th scope="col">Polarity</th><th scope="col">Disposition</th><th scope="col">Weight</th></tr></thead>
<tbody id="persona-signals">${signalRows(h)}</tbody></table>`;
  }
  return layout(
    'Dirigent — control page',
    `${pageHeader()}\n<main>${tabsNav('personas')}<section aria-labelledby="h-personas"><h2 id="h-personas">Personas</h2>${body}</section></main>`,
    true,
  );
}
