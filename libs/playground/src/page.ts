const STYLE = `
:root{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#111827;background:#f3f4f6}
body{margin:0}
header{display:flex;justify-content:space-between;align-items:center;padding:.6rem 1rem;background:#1e1b4b;color:#fff;gap:1rem;flex-wrap:wrap}
header h1{font-size:1.15rem;margin:0}
header a{color:#c7d2fe}
.layout{display:grid;grid-template-columns:230px 1fr 280px;gap:.75rem;padding:.75rem;max-width:1400px;margin:0 auto}
.panel{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:.75rem;min-width:0}
h2{font-size:1rem;margin:0 0 .5rem}
ul.channels{list-style:none;margin:0;padding:0}
ul.channels button{width:100%;text-align:left;display:flex;justify-content:space-between;gap:.5rem;padding:.4rem .5rem;border:0;background:none;border-radius:4px;font:inherit;cursor:pointer}
ul.channels button[aria-current="true"]{background:#e0e7ff;font-weight:600}
.badge{display:inline-block;padding:0 .45rem;border-radius:999px;font-size:.8rem;background:#e5e7eb}
.badge.dormant{background:#fde68a}
.state{display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:.9rem;margin:.25rem 0 .5rem}
.messages{list-style:none;margin:0;padding:0;height:380px;overflow-y:auto;border:1px solid #f3f4f6;border-radius:4px}
.messages li{padding:.35rem .5rem;border-bottom:1px solid #f9fafb}
.messages .author{font-weight:600;margin-right:.4rem}
.messages .tag{font-size:.7rem;background:#6366f1;color:#fff;border-radius:3px;padding:0 .25rem;margin-right:.4rem}
.messages .moderator{color:#6b7280;font-style:italic}
.messages .content{white-space:pre-wrap}
.reactions{display:inline-flex;gap:.25rem;margin-left:.4rem}
.poll{margin:.25rem 0 .1rem;display:flex;flex-wrap:wrap;gap:.3rem;align-items:center}
.poll .answer{border:1px solid #c7d2fe;border-radius:4px;padding:0 .4rem;font-size:.85rem}
.pinned,.thread{font-size:.8rem;margin-left:.4rem;color:#92400e}
.reaction{font-size:.8rem;border:1px solid #e5e7eb;border-radius:999px;padding:0 .35rem;font-style:normal;color:#111827}
.messages button.react{font-size:.8rem;padding:0 .4rem;margin-left:.4rem;font-style:normal}
form{display:flex;flex-direction:column;gap:.4rem}
.row{display:flex;gap:.4rem;flex-wrap:wrap;align-items:center}
textarea,input,select,button{font:inherit;padding:.3rem .45rem;border:1px solid #9ca3af;border-radius:4px;background:#fff;color:inherit}
button{cursor:pointer;background:#f3f4f6}
button.primary{background:#4338ca;color:#fff;border-color:#4338ca}
:focus-visible{outline:3px solid #f59e0b;outline-offset:1px}
.error{color:#b91c1c;font-size:.9rem;min-height:1em;margin:0}
.timeline-wrap{overflow-x:auto;margin-top:.5rem}
fieldset{border:1px solid #e5e7eb;border-radius:4px}
ol.decisions{list-style:none;margin:0;padding:0;font-size:.85rem;max-height:360px;overflow-y:auto}
ol.decisions li{border-top:1px solid #f3f4f6;padding:.35rem 0;overflow-wrap:anywhere}
ol.decisions .meta{color:#6b7280}
@media (max-width:900px){.layout{grid-template-columns:1fr}.messages{height:300px}}
`;

/** The playground page; the script renders the guild from `/playground/api/state`. */
export function playgroundPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>Dirigent playground</title><style>${STYLE}</style></head><body>
<header><h1>Dirigent playground <span id="guild-name"></span></h1>
<span id="live" role="status">connecting…</span></header>
<div class="layout">
<nav class="panel" aria-labelledby="h-channels"><h2 id="h-channels">Channels</h2><ul class="channels" id="channels"></ul>
<h2 style="margin-top:1rem">New channel</h2>
<form id="new-channel">
<label for="nc-name">Name</label><input id="nc-name" required maxlength="90" placeholder="e.g. planning">
<label for="nc-kind">Kind</label><select id="nc-kind"><option value="chat">chat</option><option value="discussion">discussion</option></select>
<fieldset><legend>Agents (discussion: the first starts it)</legend><div id="nc-agents"></div></fieldset>
<button class="primary" type="submit">Create</button><p class="error" role="alert" id="nc-error"></p>
</form></nav>
<main class="panel" aria-labelledby="channel-title">
<h2 id="channel-title">…</h2>
<div class="state" aria-live="polite">
<label for="mode">Mode <select id="mode"><option>none</option><option>chat</option><option>report</option><option disabled>work</option><option disabled>discussion</option></select></label>
<span>State: <b id="tm-state">–</b></span>
<span>Speaking: <b id="speaker">–</b></span>
<span>Dormant: <b id="dormant">–</b></span>
<span>Order: <span id="order">–</span></span>
</div>
<p class="error" role="alert" id="mode-error"></p>
<ol class="messages" id="messages" aria-label="Messages" aria-live="polite"></ol>
<form id="composer">
<label for="content">Write as the human</label>
<textarea id="content" rows="2" required maxlength="2000"></textarea>
<div class="row"><button class="primary" type="submit">Send</button>
<button type="button" data-marker="↗️" title="start multi-message mode">↗️ start multi-message</button>
<button type="button" data-marker="↙️" title="end multi-message mode">↙️ end multi-message</button></div>
<p class="error" role="alert" id="send-error"></p>
</form>
<div class="timeline-wrap" id="timeline" aria-label="Turn timeline"></div>
</main>
<aside class="panel" aria-labelledby="h-agents"><h2 id="h-agents">Agents</h2><div id="agents"></div>
<p class="muted" style="font-size:.85rem">Each demo agent joins through the relay client, answers each new human message once through the model gateway's offline model (with one thing it found through <code>dirigent.memory.search</code>), then passes with NO_REPLY, so the channel goes dormant until you write again. Dit is Dirigent's own agent (the router): it takes turns like the others and speaks when you call it by name.</p>
<h2 id="h-decisions" style="margin-top:1rem">Dit's decisions</h2>
<p id="control-link" style="font-size:.85rem"></p>
<ol class="decisions" id="decisions" aria-labelledby="h-decisions"></ol>
</aside></div>
<script src="/playground/app.js" defer></script></body></html>`;
}

/** Browser script of the playground (plain ES2017, no build step). */
export const PLAYGROUND_CLIENT_JS = String.raw`'use strict';
(function () {
  var state = null, current = null;
  var $ = function (id) { return document.getElementById(id); };
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // Discord's bold (**text**), as Discord shows it; the rest stays plain text.
  function rich(attrs, text) {
    var e = el('span', attrs);
    String(text).split(/(\*\*[^*\n]+\*\*)/).forEach(function (part) {
      var bold = /^\*\*[^*\n]+\*\*$/.test(part);
      if (bold) e.appendChild(el('strong', {}, part.slice(2, -2)));
      else if (part) e.appendChild(document.createTextNode(part));
    });
    return e;
  }
  function post(path, body) {
    return fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, body: j }; }); });
  }
  function channel(id) { return state.channels.filter(function (c) { return c.id === id; })[0]; }

  function renderChannels() {
    var ul = $('channels'); ul.innerHTML = '';
    state.channels.forEach(function (c) {
      var b = el('button', { type: 'button', 'data-channel': c.id, 'aria-current': String(c.id === current) });
      b.appendChild(el('span', {}, '#' + c.name));
      var badge = el('span', { class: 'badge' + (c.view.dormant ? ' dormant' : '') }, c.view.mode + (c.view.dormant ? ' · zz' : ''));
      b.appendChild(badge);
      b.addEventListener('click', function () { current = c.id; render(); $('content').focus(); });
      var li = el('li'); li.appendChild(b); ul.appendChild(li);
    });
  }
  function renderState() {
    var c = channel(current); if (!c) return;
    $('channel-title').textContent = '#' + c.name;
    $('mode').value = c.view.mode;
    $('mode').disabled = ['work', 'discussion'].indexOf(c.view.mode) >= 0;
    $('tm-state').textContent = c.view.tmState + (c.view.multiMessage ? ' (multi-message)' : '');
    $('speaker').textContent = c.currentSpeaker || '–';
    $('dormant').textContent = c.view.dormant ? 'yes' + (c.view.dormantReason ? ' (' + c.view.dormantReason + ')' : '') : 'no';
    $('order').textContent = c.speakers.join(' → ') || '–';
    $('timeline').innerHTML = c.timelineSvg;
  }
  function renderMessages() {
    var ol = $('messages'); ol.innerHTML = '';
    (state.messages[current] || []).forEach(function (m) { ol.appendChild(messageItem(m)); });
    ol.scrollTop = ol.scrollHeight;
  }
  function messageItem(m) {
    var li = el('li', { id: 'm-' + m.id, 'data-kind': m.kind, 'data-author': m.author, class: m.kind === 'moderator' ? 'moderator' : '' });
    li.appendChild(el('span', { class: 'author' }, m.author));
    if (m.kind !== 'human') li.appendChild(el('span', { class: 'tag' }, m.kind === 'moderator' ? 'DIRIGENT' : 'BOT'));
    li.appendChild(rich({ class: 'content' }, m.content));
    // What the skills did to a message: a native poll, a pin, a thread started from it.
    if (m.poll) {
      var poll = el('div', { class: 'poll', 'data-question': m.poll.question });
      poll.appendChild(el('b', {}, '\ud83d\udcca ' + m.poll.question));
      m.poll.answers.forEach(function (a) { poll.appendChild(el('span', { class: 'answer' }, a)); });
      li.appendChild(poll);
    }
    if (m.pinned) li.appendChild(el('span', { class: 'pinned', title: 'pinned' }, '\ud83d\udccc pinned'));
    if (m.thread) li.appendChild(el('span', { class: 'thread' }, '\ud83e\uddf5 ' + m.thread));
    var rs = el('span', { class: 'reactions' });
    (m.reactions || []).forEach(function (r) { rs.appendChild(el('span', { class: 'reaction', 'data-emoji': r.emoji }, r.emoji + ' ' + r.count)); });
    li.appendChild(rs);
    // A steward proposal in the mod channel: the human (the guild's owner) decides it.
    if (m.kind === 'moderator' && /^\*\*Proposal \x60/.test(m.content)) {
      [['\u2705', 'Approve'], ['\u274c', 'Reject']].forEach(function (pair) {
        var b = el('button', { type: 'button', class: 'react', 'data-emoji': pair[0], 'aria-label': pair[1] + ' this proposal' }, pair[0] + ' ' + pair[1]);
        b.addEventListener('click', function () { post('/playground/api/channels/' + m.channelId + '/messages/' + m.id + '/reactions', { emoji: pair[0] }); });
        li.appendChild(b);
      });
    }
    return li;
  }
  var pendingAgents = {};
  function renderAgents() {
    var box = $('agents'); box.innerHTML = '';
    var nc = $('nc-agents'); nc.innerHTML = '';
    state.agents.forEach(function (a) {
      var id = 'agent-' + a.userId;
      var label = a.name + (a.builtin ? ' (Dirigent) in the guild' : ' in the guild');
      var row = el('div', { class: 'row' });
      var cb = el('input', { type: 'checkbox', id: id });
      // A state read that left before this click would show the old box: the click's intent
      // wins until a read made after its request has come back.
      cb.checked = a.userId in pendingAgents ? pendingAgents[a.userId] : a.inGuild;
      cb.addEventListener('change', function () {
        pendingAgents[a.userId] = cb.checked;
        post('/playground/api/agents/' + a.userId, { inGuild: cb.checked })
          .catch(function () {})
          .then(function () { return load(); })
          .then(function () { delete pendingAgents[a.userId]; renderAgents(); });
      });
      row.appendChild(cb); row.appendChild(el('label', { for: id }, label));
      box.appendChild(row);
      if (a.builtin) return;
      var nid = 'nc-' + a.userId;
      var r2 = el('div', { class: 'row' });
      var c2 = el('input', { type: 'checkbox', id: nid, value: a.userId });
      c2.checked = true;
      r2.appendChild(c2); r2.appendChild(el('label', { for: nid }, a.name));
      nc.appendChild(r2);
    });
  }
  function renderDecisions() {
    var ol = $('decisions'); ol.innerHTML = '';
    if (!state.decisions.length) ol.appendChild(el('li', { class: 'meta' }, 'No decisions yet.'));
    state.decisions.forEach(function (d) {
      var li = el('li', { 'data-chosen': d.chosen, 'data-trigger': d.trigger });
      li.appendChild(el('b', {}, d.chosen));
      li.appendChild(el('span', { class: 'meta' }, ' · ' + d.trigger + ' · ' + d.latencyMs + ' ms' + (d.models.length ? ' · ' + d.models.join(', ') : '')));
      li.appendChild(el('div', { class: 'meta' }, 'scores: ' + d.scores.map(function (c) { return c.dispositionId + ' ' + c.score.toFixed(3); }).join(', ')));
      li.appendChild(el('div', { class: 'meta' }, 'seed ' + d.seed));
      if (d.said) li.appendChild(el('div', {}, d.said));
      ol.appendChild(li);
    });
    var link = $('control-link'); link.innerHTML = '';
    if (state.controlUrl) link.appendChild(el('a', { href: state.controlUrl, target: '_blank', rel: 'noopener' }, 'Full decision log on the control page'));
  }
  function render() { renderChannels(); renderState(); renderMessages(); }

  // One state read at a time: a burst of messages in a channel the page does not know yet
  // would otherwise start a read each, and a pile of them holds the browser's connections
  // to this host, so a click's request waits behind them. Later callers share one re-read.
  var loading = null, reloadAfter = null;
  function load() {
    if (loading) {
      if (!reloadAfter) reloadAfter = loading.then(function () { reloadAfter = null; return load(); });
      return reloadAfter;
    }
    loading = fetch('/playground/api/state').then(function (r) {
      if (!r.ok) { setTimeout(load, 1000); return; }
      return r.json().then(function (s) {
        state = s;
        if (!current || !channel(current)) current = s.channels[0] && s.channels[0].id;
        $('guild-name').textContent = '· ' + s.guild.name;
        renderAgents(); renderDecisions(); render();
      });
    }).catch(function () { setTimeout(load, 1000); }).then(function () { loading = null; });
    return loading;
  }

  $('composer').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var text = $('content').value;
    if (!text.trim()) return;
    $('send-error').textContent = '';
    post('/playground/api/channels/' + current + '/messages', { content: text }).then(function (r) {
      if (!r.ok) { $('send-error').textContent = r.body.error; return; }
      $('content').value = '';
    });
  });
  $('content').addEventListener('keydown', function (ev) {
    if (ev.key === 'Enter' && !ev.shiftKey) { ev.preventDefault(); $('composer').requestSubmit(); }
  });
  document.querySelectorAll('button[data-marker]').forEach(function (b) {
    b.addEventListener('click', function () {
      var t = $('content'); t.value = (t.value ? t.value + ' ' : '') + b.getAttribute('data-marker'); t.focus();
    });
  });
  $('mode').addEventListener('change', function () {
    $('mode-error').textContent = '';
    post('/playground/api/channels/' + current + '/mode', { mode: $('mode').value }).then(function (r) {
      if (!r.ok) $('mode-error').textContent = r.body.error;
    });
  });
  $('new-channel').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var agents = Array.prototype.slice.call(document.querySelectorAll('#nc-agents input:checked')).map(function (i) { return i.value; });
    $('nc-error').textContent = '';
    post('/playground/api/channels', { name: $('nc-name').value, kind: $('nc-kind').value, agents: agents }).then(function (r) {
      if (!r.ok) { $('nc-error').textContent = r.body.error; return; }
      current = r.body.channelId; $('nc-name').value = '';
      return load();
    });
  });

  var source = new EventSource('/playground/api/events');
  source.addEventListener('open', function () { $('live').textContent = 'live'; });
  source.addEventListener('error', function () { $('live').textContent = 'reconnecting…'; });
  source.addEventListener('message', function (ev) {
    var m = JSON.parse(ev.data);
    if (!state) return;
    if (!state.messages[m.channelId]) { load(); return; }
    state.messages[m.channelId].push(m);
    if (m.channelId === current) { var ol = $('messages'); ol.appendChild(messageItem(m)); ol.scrollTop = ol.scrollHeight; }
  });
  source.addEventListener('decision', function (ev) {
    if (!state) return;
    state.decisions.unshift(JSON.parse(ev.data));
    state.decisions = state.decisions.slice(0, 20);
    renderDecisions();
  });
  source.addEventListener('channels-changed', function () { if (state) load(); });
  source.addEventListener('message-updated', function (ev) {
    var m = JSON.parse(ev.data);
    if (!state || !state.messages[m.channelId]) return;
    state.messages[m.channelId] = state.messages[m.channelId].map(function (x) { return x.id === m.id ? m : x; });
    var li = $('m-' + m.id); if (li) li.replaceWith(messageItem(m));
  });
  source.addEventListener('message-deleted', function (ev) {
    var d = JSON.parse(ev.data);
    if (!state || !state.messages[d.channelId]) return;
    state.messages[d.channelId] = state.messages[d.channelId].filter(function (m) { return m.id !== d.id; });
    var li = $('m-' + d.id); if (li) li.remove();
  });
  source.addEventListener('channel', function (ev) {
    var c = JSON.parse(ev.data);
    if (!state) return;
    var i = state.channels.findIndex(function (x) { return x.id === c.id; });
    if (i < 0) { load(); return; }
    state.channels[i] = c;
    renderChannels(); if (c.id === current) renderState();
  });
  load();
})();
`;
