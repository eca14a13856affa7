/**
 * The control page's browser script: actions through the JSON API (same-origin, the
 * session cookie rides along) and live fragments over server-sent events. Plain ES2017,
 * no build step; served as `/dirigent/app.js`.
 */
export const CONTROL_CLIENT_JS = String.raw`'use strict';
(function () {
  var $ = function (sel) { return document.querySelector(sel); };

  function describe(body, status) {
    var err = body && body.error;
    if (!err) return 'request failed (' + status + ')';
    var details = Array.isArray(err.details) ? err.details : [];
    var fields = details
      .filter(function (d) { return d && d.messages; })
      .map(function (d) { return d.messages.join(', '); });
    return fields.length ? fields.join('; ') : err.message;
  }

  function api(method, path, body) {
    return fetch(path, {
      method: method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(function (res) {
      if (res.status === 401) { location.reload(); }
      return res.text().then(function (text) {
        var json = null;
        try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
        return { ok: res.ok, status: res.status, body: json };
      });
    }, function (e) { return { ok: false, status: 0, body: { error: { message: String(e) } } }; });
  }

  function showError(id, message) {
    var el = document.getElementById(id);
    if (el) el.textContent = message || '';
  }

  function weightsOf(changedOnly) {
    var out = {};
    document.querySelectorAll('#whatif-weights input[data-disposition]').forEach(function (i) {
      if (changedOnly && i.value.trim() === i.getAttribute('data-initial')) return;
      out[i.getAttribute('data-disposition')] = i.value.trim();
    });
    return out;
  }

  function whatIfErrors(r) {
    document.querySelectorAll('#whatif .error').forEach(function (e) { e.textContent = ''; });
    showError('whatif-error', '');
    $('#whatif-saved').textContent = '';
    if (!r) return;
    var details = r.body && r.body.error && Array.isArray(r.body.error.details) ? r.body.error.details : [];
    var rest = [];
    details.forEach(function (d) {
      var field = d && d.field ? String(d.field) : '';
      var el = field.indexOf('weights.') === 0 ? document.getElementById('err-w-' + field.slice(8))
        : field === 'last' ? document.getElementById('err-whatif-last') : null;
      if (el) el.textContent = (d.messages || []).join(', ');
      else rest.push((d.messages || []).join(', '));
    });
    if (!details.length || rest.length) showError('whatif-error', rest.length ? rest.join('; ') : describe(r.body, r.status));
  }

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) { return '&#' + c.charCodeAt(0) + ';'; });
  }

  function whatIfTable(d) {
    var rows = Object.keys(d.byDisposition).sort().map(function (id) {
      var x = d.byDisposition[id], delta = x.after - x.before;
      return '<tr data-disposition="' + esc(id) + '"><td><code>' + esc(id) + '</code></td><td data-field="before">' + x.before +
        '</td><td data-field="after">' + x.after + '</td><td>' + (delta > 0 ? '+' : '') + delta + '</td></tr>';
    }).join('');
    return '<p id="whatif-changed" data-changed="' + d.changed + '"><strong>' + d.changed + '</strong> of ' + d.decisions +
      ' decisions would choose another disposition.</p>' +
      '<table><thead><tr><th scope="col">Disposition</th><th scope="col">Chosen before</th><th scope="col">After</th><th scope="col">Change</th></tr></thead><tbody>' +
      (rows || '<tr><td colspan="4" class="muted">No decision kept its inputs.</td></tr>') + '</tbody></table>';
  }

  var pendingIdentities = null;
  function swapIdentities(html) {
    var body = $('#identity-rows');
    if (!body) return;
    if (body.contains(document.activeElement)) { pendingIdentities = html; return; }
    body.innerHTML = html;
    pendingIdentities = null;
  }
  document.addEventListener('focusout', function () {
    setTimeout(function () {
      if (pendingIdentities !== null) swapIdentities(pendingIdentities);
    }, 0);
  });

  function refreshIdentities() {
    return fetch('/dirigent/fragment/identities', { credentials: 'same-origin' })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) { if (html !== null) swapIdentities(html); });
  }

  function refreshDeadLetters() {
    return fetch('/dirigent/fragment/dead-letters', { credentials: 'same-origin' })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) { var b = $('#dead-letter-rows'); if (html !== null && b) b.innerHTML = html; });
  }

  function swapChannel(channelId, guildId, html) {
    var old = document.getElementById('ch-' + channelId);
    var tpl = document.createElement('template');
    tpl.innerHTML = html.trim();
    if (!old) {
      var guild = document.getElementById('guild-' + guildId);
      if (guild) guild.appendChild(tpl.content.firstElementChild);
      return;
    }
    var focused = document.activeElement && old.contains(document.activeElement) ? document.activeElement.id : null;
    old.replaceWith(tpl.content.firstElementChild);
    if (focused) { var f = document.getElementById(focused); if (f) f.focus(); }
  }

  var actions = {
    'add-identity': function () {
      var user = $('#new-user'), agent = $('#new-agent'), name = $('#new-name');
      var body = { discordUserId: user.value.trim(), agentId: agent.value.trim() };
      if (name.value.trim()) body.agentName = name.value.trim();
      showError('err-new', '');
      return api('POST', '/dirigent/api/identities', body).then(function (r) {
        if (!r.ok) { showError('err-new', describe(r.body, r.status)); user.focus(); return; }
        user.value = ''; agent.value = ''; name.value = '';
        return refreshIdentities();
      });
    },
    'save-identity': function (el) {
      var user = el.getAttribute('data-user');
      var agent = document.getElementById('agent-' + user), name = document.getElementById('name-' + user);
      var body = { agentId: agent.value.trim() };
      if (name.value.trim()) body.agentName = name.value.trim();
      showError('err-' + user, '');
      return api('PUT', '/dirigent/api/identities/' + encodeURIComponent(user), body).then(function (r) {
        if (!r.ok) { showError('err-' + user, describe(r.body, r.status)); return; }
        el.blur();
        return refreshIdentities();
      });
    },
    'delete-identity': function (el) {
      var user = el.getAttribute('data-user');
      return api('DELETE', '/dirigent/api/identities/' + encodeURIComponent(user)).then(function (r) {
        if (!r.ok) { showError('err-' + user, describe(r.body, r.status)); return; }
        el.blur();
        return refreshIdentities();
      });
    },
    rescan: function () {
      var status = $('#rescan-status');
      status.textContent = 'scanning…';
      return api('POST', '/dirigent/api/identities/rescan', {}).then(function (r) {
        status.textContent = r.ok ? 'imported ' + r.body.data.imported + ' new entries' : describe(r.body, r.status);
        return refreshIdentities();
      });
    },
    redrive: function (el) {
      var seq = el.getAttribute('data-seq');
      return api('POST', '/dirigent/api/dead-letters/' + seq + '/redrive', {}).then(function (r) {
        if (!r.ok) { showError('err-dl-' + seq, describe(r.body, r.status)); return; }
        el.textContent = 'Re-driven';
        el.disabled = true;
      });
    },
    advance: function (el) {
      var channel = el.getAttribute('data-channel');
      showError('err-ch-' + channel, '');
      return api('POST', '/dirigent/api/channels/' + channel + '/advance', {
        guildId: el.getAttribute('data-guild'),
      }).then(function (r) {
        if (!r.ok) showError('err-ch-' + channel, describe(r.body, r.status));
      });
    },
    'rollback-persona': function (el) {
      var agent = el.getAttribute('data-agent');
      showError('persona-error', '');
      return api('POST', '/dirigent/api/personas/' + encodeURIComponent(agent) + '/rollback', {
        version: Number(el.getAttribute('data-version')),
      }).then(function (r) {
        if (!r.ok) { showError('persona-error', describe(r.body, r.status)); return; }
        location.reload();
      });
    },
    'whatif-run': function () {
      var form = $('#whatif');
      var body = { guildId: form.getAttribute('data-guild'), agentId: form.getAttribute('data-agent'), last: $('#whatif-last').value, weights: weightsOf(false) };
      whatIfErrors(null);
      $('#whatif-result').textContent = 'replaying…';
      return api('POST', '/dirigent/api/learning/whatif', body).then(function (r) {
        if (!r.ok) { $('#whatif-result').textContent = ''; whatIfErrors(r); return; }
        $('#whatif-result').innerHTML = whatIfTable(r.body.data);
      });
    },
    'whatif-save': function () {
      var form = $('#whatif');
      var weights = weightsOf(true);
      whatIfErrors(null);
      if (!Object.keys(weights).length) { $('#whatif-saved').textContent = 'No weight differs from the persona’s.'; return; }
      return api('POST', '/dirigent/api/personas/' + encodeURIComponent(form.getAttribute('data-agent')) + '/weights', { weights: weights }).then(function (r) {
        if (!r.ok) { whatIfErrors(r); return; }
        document.querySelectorAll('#whatif-weights input[data-disposition]').forEach(function (i) {
          var id = i.getAttribute('data-disposition');
          if (weights[id] !== undefined) i.setAttribute('data-initial', i.value.trim());
        });
        $('#whatif-saved').textContent = 'Saved as version ' + r.body.data.version + ' of ' + r.body.data.agentId + '.';
      });
    },
    discard: function (el) {
      var seq = el.getAttribute('data-seq');
      return api('POST', '/dirigent/api/dead-letters/' + seq + '/discard', {}).then(function (r) {
        if (!r.ok) { showError('err-dl-' + seq, describe(r.body, r.status)); return; }
        return refreshDeadLetters();
      });
    },
  };

  var channelActions = {
    'set-mode': function (el) { return ['mode', { mode: el.value }]; },
    'set-shuffle': function (el) { return ['shuffle', { shuffle: el.value === 'auto' ? null : el.value === 'on' }]; },
    'set-wake-mode': function (el) { return ['wake-mode', { wakeMode: el.value }]; },
  };

  document.addEventListener('click', function (ev) {
    var el = ev.target.closest('button[data-action]');
    if (!el || !actions[el.getAttribute('data-action')]) return;
    ev.preventDefault();
    el.setAttribute('aria-busy', 'true');
    Promise.resolve(actions[el.getAttribute('data-action')](el)).then(function () {
      el.removeAttribute('aria-busy');
    });
  });

  document.addEventListener('keydown', function (ev) {
    if (ev.key !== 'Enter' || !ev.target.matches('#identity-add input, #identity-rows input')) return;
    ev.preventDefault();
    var row = ev.target.closest('tr');
    var button = row && row.querySelector('button[data-action="add-identity"], button[data-action="save-identity"]');
    if (button) button.click();
  });

  document.addEventListener('change', function (ev) {
    var el = ev.target;
    var make = channelActions[el.getAttribute('data-action')];
    if (!make) return;
    var channel = el.getAttribute('data-channel');
    var call = make(el);
    var body = call[1];
    body.guildId = el.getAttribute('data-guild');
    showError('err-ch-' + channel, '');
    api('POST', '/dirigent/api/channels/' + channel + '/' + call[0], body).then(function (r) {
      if (!r.ok) showError('err-ch-' + channel, describe(r.body, r.status));
    });
  });

  var status = $('#live-status');
  if (window.EventSource) {
    var source = new EventSource('/dirigent/api/events');
    source.addEventListener('open', function () { if (status) status.textContent = 'live'; });
    source.addEventListener('error', function () { if (status) status.textContent = 'reconnecting…'; });
    source.addEventListener('channel', function (ev) {
      var d = JSON.parse(ev.data);
      swapChannel(d.channelId, d.guildId, d.html);
    });
    source.addEventListener('identities', function (ev) { swapIdentities(JSON.parse(ev.data).html); });
    source.addEventListener('dead-letters', function () { refreshDeadLetters(); });
  }
})();
`;
