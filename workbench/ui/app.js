// The page of the workbench (package workbench; "ptc dev" over agent
// files): agents, runs watched live, history, compare, test cases.
// Vanilla JavaScript served by the workbench itself, no outside
// resources; the helpers (elements, highlighter, values) are the trace
// page's (lib.js). Every text from the server goes into the page through
// textContent, never as HTML.
(function () {
  'use strict';

  var V = PTCView;
  var el = V.el, num = V.num, plural = V.plural, ms = V.ms, code = V.code,
    clip = V.clip, block = V.block, details = V.details, tokensText = V.tokensText;

  // add appends each child after parent (arrays, text, elements; null skipped).
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) V.add(parent, arguments[i]);
  }

  var state = {agents: [], dir: '', files: false, name: 'ptc dev', defaultModel: '', live: null, started: {}};
  var main = document.getElementById('main');
  var modelInput = document.getElementById('model');

  // ---- Talking to the server -------------------------------------------

  function api(method, path, body) {
    var opts = {method: method, headers: {}, credentials: 'same-origin'};
    if (body !== undefined) {
      opts.headers['Content-Type'] = 'application/json';
      opts.body = JSON.stringify(body);
    }
    return fetch(path, opts).then(function (res) {
      return res.text().then(function (text) {
        var data = null;
        try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
        if (!res.ok) {
          var msg = (data && data.error) || text || res.statusText;
          if (res.status === 401) msg = 'Not signed in: open the address ' + state.name + ' printed (it carries the token).';
          var err = new Error(msg);
          err.status = res.status;
          throw err;
        }
        return data;
      });
    });
  }

  var toastTimer = null;
  function toast(text, isError) {
    var t = document.getElementById('toast');
    t.textContent = text;
    t.className = 'toast' + (isError ? ' error' : '');
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () { t.hidden = true; }, isError ? 8000 : 3000);
  }
  function fail(err) { toast(err.message || String(err), true); }

  function agentPath(name) { return '/api/agents/' + encodeURIComponent(name); }
  function runPath(id) { return '/api/runs/' + encodeURIComponent(id); }

  function findAgent(name) {
    for (var i = 0; i < state.agents.length; i++) if (state.agents[i].name === name) return state.agents[i];
    return null;
  }

  function loadAgents() {
    return api('GET', '/api/agents').then(function (data) {
      state.agents = data.agents || [];
      state.dir = data.dir || '';
      state.files = !!data.files;
      state.name = data.name || state.name;
      state.defaultModel = data.default_model || '';
      document.title = state.name;
      var home = document.querySelector('.bar .home');
      home.textContent = '';
      add(home, el('span', {class: 'brand', text: 'ptc'}), ' ' + state.name.replace(/^ptc /, ''));
      var dir = document.getElementById('dir');
      var parts = state.dir.replace(/[\/\\]+$/, '').split(/[\/\\]/);
      dir.textContent = state.files ? (parts[parts.length - 1] || state.dir) + '/' : state.dir;
      dir.title = state.dir;
      if (!modelInput.value) modelInput.value = state.defaultModel;
      var models = {};
      if (state.defaultModel) models[state.defaultModel] = true;
      state.agents.forEach(function (a) { if (a.model) models[a.model] = true; });
      var list = document.getElementById('models');
      list.textContent = '';
      Object.keys(models).sort().forEach(function (m) { add(list, el('option', {value: m})); });
      renderAgentList();
    });
  }

  // ---- Small pieces ------------------------------------------------------

  function statusBadge(status) {
    var cls = {ok: 'ok', failed: 'fail', cancelled: 'warn', running: 'run'}[status] || 'muted';
    var text = {ok: 'returned', failed: 'failed', cancelled: 'cancelled', running: 'running'}[status] || status;
    return el('span', {class: 'badge ' + cls, 'data-status': status, text: text});
  }

  function when(iso) {
    if (!iso) return '';
    var d = new Date(iso);
    if (isNaN(d)) return iso;
    var pad = function (n) { return (n < 10 ? '0' : '') + n; };
    return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' +
      pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
  }

  // runTime is a run's duration, whole milliseconds from the server.
  function runTime(v) { return v > 0 ? ms(v) : '< 1 ms'; }

  function button(text, onClick, cls, attrs) {
    var b = el('button', Object.assign({type: 'button', class: 'btn ' + (cls || ''), text: text}, attrs || {}));
    b.addEventListener('click', onClick);
    return b;
  }

  function link(href, text, cls) { return el('a', {href: href, class: cls || '', text: text}); }

  function setMain() {
    main.textContent = '';
    for (var i = 0; i < arguments.length; i++) add(main, arguments[i]);
  }

  function heading(title, sub) {
    return el('div', {class: 'page-head'}, el('h1', {text: title}), sub ? el('p', {class: 'muted', text: sub}) : null);
  }

  function chosenModel(agent) {
    // What a run uses when the box is empty, as the server orders it
    // (--model, the file's model:, $PTC_MODEL).
    return modelInput.value.trim() || (agent && agent.run_model) || state.defaultModel || '';
  }

  // ---- The agent list ----------------------------------------------------

  function renderAgentList() {
    var ul = document.getElementById('agents');
    ul.textContent = '';
    if (!state.agents.length) {
      add(ul, el('li', {class: 'muted small', text: state.files ? 'No agent files (*.md starting with ---) in ' + state.dir : 'No agents.'}));
      return;
    }
    state.agents.forEach(function (a) {
      var li = el('li', {class: 'agent-item' + (a.error ? ' broken' : ''), 'data-agent': a.name},
        el('a', {href: '#/agent/' + encodeURIComponent(a.name)},
          el('span', {class: 'agent-name', text: a.name}),
          a.error ? el('span', {class: 'badge fail', text: 'error'}) : null,
          (a.cases || []).length ? el('span', {class: 'badge muted', text: plural(a.cases.length, 'case')}) : null,
          a.description ? el('span', {class: 'agent-desc', text: a.description}) : null));
      add(ul, li);
    });
    markCurrent();
  }

  function markCurrent() {
    var h = location.hash;
    document.querySelectorAll('.agent-item').forEach(function (li) {
      var on = h.indexOf('#/agent/' + encodeURIComponent(li.getAttribute('data-agent'))) === 0;
      li.classList.toggle('current', on);
    });
    document.getElementById('nav-history').classList.toggle('current', h.indexOf('#/history') === 0);
    document.getElementById('nav-agents').classList.toggle('current', h === '' || h === '#/' || h.indexOf('#/agent/') === 0);
  }

  function renderHome() {
    var cards = state.agents.map(function (a) {
      return el('a', {class: 'card agent-card', href: '#/agent/' + encodeURIComponent(a.name)},
        el('h2', {text: a.name}),
        a.error ? el('pre', {class: 'error', text: a.error}) : el('p', {class: 'muted', text: a.description || a.file}),
        a.signature ? code(a.signature, 'sig') : null);
    });
    var files = state.files;
    setMain(heading('Agents', files ? plural(state.agents.length, 'agent file') + ' in ' + state.dir : plural(state.agents.length, 'agent')),
      cards.length ? el('div', {class: 'grid'}, cards) : el('p', {class: 'note', text: files ? 'Put agent files (Markdown starting with a --- front matter) in ' + state.dir + ' and reload.' : 'No agents: give the workbench some (workbench.Options.Agents).'}));
  }

  // ---- One agent: run form, prompt and limits, test cases, its runs -------

  var LIMIT_KEYS = ['timeout', 'max_steps', 'max_memory', 'max_depth', 'max_loop', 'max_output', 'max_tool_calls', 'max_parallel'];

  function inputField(inp) {
    var id = 'in-' + inp.name;
    var v = inp.value;
    var field;
    switch (inp.kind) {
      case 'bool':
        field = el('input', {type: 'checkbox', id: id, name: inp.name});
        field.checked = v === true;
        break;
      case 'int':
      case 'float':
        field = el('input', {type: 'number', id: id, name: inp.name, step: inp.kind === 'int' ? '1' : 'any'});
        if (v !== null && v !== undefined) field.value = String(v);
        break;
      case 'string':
      case 'keyword':
        field = el('input', {type: 'text', id: id, name: inp.name, spellcheck: 'false'});
        if (v !== null && v !== undefined) field.value = typeof v === 'string' ? v : JSON.stringify(v);
        break;
      default: // list, map, any: JSON
        field = el('textarea', {id: id, name: inp.name, rows: '4', spellcheck: 'false', class: 'json'});
        if (v !== null && v !== undefined) field.value = JSON.stringify(v, null, 2);
    }
    field.setAttribute('data-kind', inp.kind);
    return el('div', {class: 'field'},
      el('label', {for: id}, el('span', {class: 'fname', text: inp.name}), ' ',
        el('code', {class: 'ftype', text: (/^[a-z]+$/.test(inp.type) ? ':' : '') + inp.type + (inp.optional ? ' (optional)' : '')})),
      field);
  }

  function readInputs(form, agent) {
    var out = {};
    (agent.inputs || []).forEach(function (inp) {
      var f = form.querySelector('[name="' + CSS.escape(inp.name) + '"]');
      if (!f) return;
      var kind = f.getAttribute('data-kind');
      if (kind === 'bool') { out[inp.name] = f.checked; return; }
      var text = f.value;
      if (text.trim() === '') {
        if (!inp.optional && inp.value !== null && inp.value !== undefined) return; // the context gives it
        return;
      }
      if (kind === 'int' || kind === 'float') {
        var n = Number(text);
        if (!isFinite(n)) throw new Error(inp.name + ': want a number, got ' + clip(text, 40));
        out[inp.name] = n;
      } else if (kind === 'string' || kind === 'keyword') {
        out[inp.name] = text;
      } else {
        try { out[inp.name] = JSON.parse(text); } catch (e) { throw new Error(inp.name + ': not JSON: ' + e.message); }
      }
    });
    return out;
  }

  // edits reads the prompt and limit fields, keeping only what differs
  // from the agent file.
  function readEdits(box, agent) {
    var e = {};
    var prompt = box.querySelector('#edit-prompt').value;
    if (prompt !== (agent.prompt || '')) e.prompt = prompt;
    var mt = box.querySelector('#edit-max_turns').value.trim();
    if (mt !== '' && Number(mt) !== (agent.max_turns || 0)) e.max_turns = Number(mt);
    var limits = {};
    var any = false;
    LIMIT_KEYS.forEach(function (k) {
      var f = box.querySelector('#edit-' + k);
      var was = (agent.limits || {})[k];
      var now = f.value.trim();
      if (now === '' && (was === undefined || was === 0 || was === '' || was === null)) return;
      if (String(now) === String(was === undefined || was === null ? '' : was)) return;
      limits[k] = /^\d+$/.test(now) ? Number(now) : now;
      any = true;
    });
    if (any) e.limits = limits;
    return e;
  }

  // readOnly shows the prompt of an agent the page cannot edit (a Go
  // agent): the runs use the agent as the program built it.
  function readOnly(agent) {
    var pre = el('pre', {class: 'prompt', id: 'agent-prompt', text: agent.prompt || ''});
    return {box: agent.prompt ? details([el('span', {text: 'Prompt'})], pre, false, 'prompt') : null,
      edits: function () { return {}; }};
  }

  function editor(agent) {
    if (!agent.editable) return readOnly(agent);
    var prompt = el('textarea', {id: 'edit-prompt', rows: '10', spellcheck: 'false', class: 'prompt-edit'});
    prompt.value = agent.prompt || '';
    var mt = el('input', {type: 'number', id: 'edit-max_turns', min: '1', step: '1'});
    if (agent.max_turns) mt.value = String(agent.max_turns);
    var limits = LIMIT_KEYS.map(function (k) {
      var f = el('input', {type: 'text', id: 'edit-' + k, spellcheck: 'false', placeholder: 'default'});
      var v = (agent.limits || {})[k];
      if (v !== undefined && v !== null && v !== 0 && v !== '') f.value = String(v);
      return el('div', {class: 'field small-field'}, el('label', {for: 'edit-' + k, text: k.replace(/_/g, '-')}), f);
    });
    var box = el('div', {class: 'editor'},
      el('div', {class: 'field'}, el('label', {for: 'edit-prompt', text: 'Prompt'}), prompt),
      el('div', {class: 'limits'}, el('div', {class: 'field small-field'}, el('label', {for: 'edit-max_turns', text: 'max-turns'}), mt), limits));
    var changed = el('span', {class: 'muted small edited-note', text: ''});
    function refresh() {
      var n = Object.keys(readEdits(box, agent)).length;
      changed.textContent = n ? 'Edited: the next run uses these; the file changes only when you save.' : '';
    }
    box.addEventListener('input', refresh);
    var save = button('Save to ' + agent.file, function () {
      var edits = readEdits(box, agent);
      if (!Object.keys(edits).length) { toast('Nothing changed.'); return; }
      if (!confirm('Write these changes to ' + agent.file + '?')) return;
      api('POST', agentPath(agent.name) + '/save', edits).then(function (a) {
        replaceAgent(a);
        toast('Saved ' + agent.file);
        route();
      }).catch(fail);
    }, 'save', {id: 'save'});
    var reset = button('Undo edits', function () { route(); }, '', {id: 'reset'});
    return {box: details([el('span', {text: 'Prompt and limits'}), ' ', changed], el('div', {}, box, el('div', {class: 'actions'}, save, reset)), false, 'edit'),
      edits: function () { return readEdits(box, agent); }};
  }

  function replaceAgent(a) {
    for (var i = 0; i < state.agents.length; i++) if (state.agents[i].name === a.name) state.agents[i] = a;
    renderAgentList();
  }

  function renderAgent(name) {
    var agent = findAgent(name);
    if (!agent) { setMain(heading('No agent ' + name), el('p', {}, link('#/', 'All agents'))); return; }
    var head = el('div', {class: 'page-head'},
      el('h1', {}, agent.name, ' ', el('span', {class: 'file', text: agent.file})),
      agent.description ? el('p', {class: 'muted', text: agent.description}) : null);
    if (agent.error) {
      setMain(head, el('section', {class: 'card'}, el('h2', {text: agent.file ? 'The file does not read' : 'The agent does not build'}), el('pre', {class: 'error', text: agent.error}),
        el('p', {class: 'muted', text: 'Fix it and reload the page.'})));
      return;
    }
    var facts = el('dl', {class: 'facts'},
      agent.signature ? [el('dt', {text: 'Signature'}), el('dd', {}, code(agent.signature, 'sig'))] : null,
      [el('dt', {text: 'Tools'}), toolsFact(agent)],
      [el('dt', {text: 'Model'}), el('dd', {text: chosenModel(agent) || 'none chosen: set one above'})]);

    var form = el('form', {class: 'run-form', id: 'run-form', autocomplete: 'off'});
    (agent.inputs || []).forEach(function (inp) { add(form, inputField(inp)); });
    if (!(agent.inputs || []).length) add(form, el('p', {class: 'muted', text: 'The agent takes no input: it works on its context.'}));
    var ed = editor(agent);
    var runBtn = el('button', {type: 'submit', class: 'btn primary', id: 'run', text: 'Run'});
    add(form, ed.box, el('div', {class: 'actions'}, runBtn));
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      var body;
      try {
        body = {agent: agent.name, input: readInputs(form, agent), model: chosenModel(agent)};
      } catch (e) { fail(e); return; }
      var edits = ed.edits();
      Object.keys(edits).forEach(function (k) { body[k] = edits[k]; });
      runBtn.disabled = true;
      api('POST', '/api/runs', body).then(function (r) {
        state.started[r.id] = r;
        location.hash = '#/run/' + encodeURIComponent(r.id);
      }).catch(function (e) { runBtn.disabled = false; fail(e); });
    });

    var tests = testsSection(agent);
    var runs = el('section', {class: 'card'}, el('h2', {text: 'Runs of ' + agent.name}), el('div', {id: 'agent-runs', class: 'muted', text: 'Loading…'}));
    setMain(head, el('section', {class: 'card'}, facts), el('section', {class: 'card'}, el('h2', {text: 'Run'}), form), tests, runs);
    api('GET', '/api/runs?agent=' + encodeURIComponent(agent.name)).then(function (data) {
      var box = document.getElementById('agent-runs');
      if (!box) return;
      var table = historyTable(data.runs || [], false);
      table.id = 'agent-runs-table';
      box.replaceWith(table);
    }).catch(fail);
  }

  // toolsFact lists the agent's tools. An MCP agent's are known from its
  // last run (tools_from), else on demand: the button starts its servers.
  function toolsFact(agent) {
    var dd = el('dd', {id: 'tools'});
    function show(tools, note) {
      dd.textContent = '';
      add(dd, tools.length ? tools.map(function (t) { return el('code', {class: 'tool', text: 'tool/' + t}); }) : el('span', {class: 'muted', text: 'none'}));
      if (note) add(dd, ' ', note);
    }
    var tools = agent.tools || [];
    if (!agent.mcp) { show(tools); return dd; }
    if (agent.tools_from) {
      show(tools, el('span', {class: 'muted small tools-from'}, '(as of its run ', link('#/run/' + encodeURIComponent(agent.tools_from), agent.tools_from), ')'));
      return dd;
    }
    var mcpNote = el('span', {class: 'muted', text: (tools.length ? 'and those of ' : '') + 'the MCP servers of ' + agent.mcp + ' (listed when a run connects)'});
    show(tools, mcpNote);
    if (agent.can_list_tools) {
      var btn = button('List tools (starts the MCP servers)', function () {
        btn.disabled = true;
        btn.textContent = 'Starting the MCP servers…';
        api('POST', agentPath(agent.name) + '/tools').then(function (r) {
          show(r.tools || [], el('span', {class: 'muted small tools-from', text: '(listed now, from the MCP servers)'}));
        }).catch(function (e) {
          btn.disabled = false;
          btn.textContent = 'List tools (starts the MCP servers)';
          fail(e);
        });
      }, 'small', {id: 'list-tools'});
      add(dd, ' ', btn);
    }
    return dd;
  }

  function testsSection(agent) {
    var cases = agent.cases || [];
    var sec = el('section', {class: 'card tests'}, el('h2', {text: 'Test cases'}));
    if (agent.cases_error) { add(sec, el('pre', {class: 'error', text: agent.cases_error})); return sec; }
    if (!cases.length) {
      add(sec, el('p', {class: 'muted', text: agent.file ? 'No test cases: add a cases: key or ' + agent.name + '.cases.clj beside the file (see docs/evals.md).' :
        'No test cases (workbench.Agent.Cases).'}));
      return sec;
    }
    var table = el('table', {class: 'table', id: 'tests'},
      el('thead', {}, el('tr', {}, ['Case', 'Input', 'Result', 'Turns', 'Tokens', 'Time', 'Why'].map(function (h) { return el('th', {text: h}); }))),
      el('tbody', {}, cases.map(function (c) {
        return el('tr', {'data-case': c.name}, el('td', {text: c.name}), el('td', {}, el('code', {text: clip(JSON.stringify(c.input || {}), 60)})),
          el('td', {class: 'res'}, el('span', {class: 'badge muted', text: 'not run'})), el('td', {class: 'num'}), el('td', {class: 'num'}), el('td', {class: 'num'}), el('td', {class: 'why'}));
      })));
    var sum = el('span', {class: 'muted', id: 'tests-summary'});
    var btn = button('Run ' + plural(cases.length, 'case'), function () {
      btn.disabled = true;
      sum.textContent = 'Running with ' + (chosenModel(agent) || 'no model') + '…';
      sec.classList.add('busy');
      api('POST', agentPath(agent.name) + '/test', {model: chosenModel(agent)}).then(function (rep) {
        var body = table.querySelector('tbody');
        body.textContent = '';
        (rep.rows || []).forEach(function (r) {
          var t = r.tokens || {};
          add(body, el('tr', {'data-case': r['case'], class: r.passed ? 'pass' : 'fail'},
            el('td', {text: r['case']}),
            el('td', {}, r['return'] ? el('code', {text: clip(r['return'], 60)}) : null),
            el('td', {class: 'res'}, el('span', {class: 'badge ' + (r.passed ? 'ok' : 'fail'), text: r.passed ? 'pass' : 'fail'})),
            el('td', {class: 'num', text: num(r.turns)}),
            el('td', {class: 'num', text: num(t.input) + ' / ' + num(t.output)}),
            el('td', {class: 'num', text: runTime(r.duration_ms)}),
            el('td', {class: 'why', text: r.detail || ''})));
        });
        sum.textContent = rep.passed + ' of ' + rep.total + ' passed with ' + (rep.model || chosenModel(agent));
        sum.className = rep.passed === rep.total ? 'ok-text' : 'err-text';
        table.querySelector('thead tr').children[1].textContent = 'Returned';
      }).catch(fail).then(function () { btn.disabled = false; sec.classList.remove('busy'); });
    }, 'primary', {id: 'run-tests'});
    add(sec, el('div', {class: 'actions'}, btn, sum), table);
    return sec;
  }

  // ---- History -------------------------------------------------------------

  function historyTable(runs, withAgent) {
    if (!runs.length) return el('p', {class: 'muted', text: 'No runs yet.'});
    var picked = [];
    var started = {};
    runs.forEach(function (r) { started[r.id] = r.started_at || ''; });
    var cmp = button('Compare the two selected', function () {
      // The older on the left: what changed reads left to right.
      var two = picked.slice().sort(function (a, b) { return started[a] < started[b] ? -1 : started[a] > started[b] ? 1 : a < b ? -1 : 1; });
      location.hash = '#/compare/' + encodeURIComponent(two[0]) + '/' + encodeURIComponent(two[1]);
    }, 'primary', {id: 'compare', disabled: true});
    var hint = el('span', {class: 'muted small', text: 'Select two runs to compare them.'});
    function pick(id, on) {
      picked = picked.filter(function (x) { return x !== id; });
      if (on) picked.push(id);
      while (picked.length > 2) {
        var old = picked.shift();
        var box = document.querySelector('input[data-run="' + CSS.escape(old) + '"]');
        if (box) box.checked = false;
      }
      cmp.disabled = picked.length !== 2;
    }
    var heads = ['', 'Started', withAgent ? 'Agent' : null, 'Model', 'Status', 'Turns', 'Tokens', 'Time', 'Result'].filter(function (h) { return h !== null; });
    var table = el('table', {class: 'table history'},
      el('thead', {}, el('tr', {}, heads.map(function (h) { return el('th', {text: h}); }))),
      el('tbody', {}, runs.map(function (r) {
        var box = el('input', {type: 'checkbox', 'data-run': r.id, 'aria-label': 'select run ' + r.id});
        box.addEventListener('change', function () { pick(r.id, box.checked); });
        var t = r.tokens || {};
        var result = r.fail ? el('span', {class: 'err-text', text: r.fail.reason + ': ' + clip(r.fail.message, 60)}) : el('code', {text: clip(r.result, 70)});
        return el('tr', {'data-run': r.id},
          el('td', {}, box),
          el('td', {}, link('#/run/' + encodeURIComponent(r.id), when(r.started_at))),
          withAgent ? el('td', {}, link('#/agent/' + encodeURIComponent(r.agent), r.agent)) : null,
          el('td', {}, el('code', {text: r.model || ''})),
          el('td', {}, statusBadge(r.status), r.replay_of ? el('span', {class: 'badge muted', text: 'replay'}) : null,
            r.edited ? el('span', {class: 'badge warn', text: 'edited'}) : null),
          el('td', {class: 'num', text: num(r.turns)}),
          el('td', {class: 'num', text: num(t.input) + ' / ' + num(t.output)}),
          el('td', {class: 'num', text: r.status === 'running' ? '…' : runTime(r.duration_ms)}),
          el('td', {class: 'result'}, result));
      })));
    return el('div', {}, el('div', {class: 'actions'}, cmp, hint), el('div', {class: 'scroll'}, table));
  }

  function renderHistory() {
    setMain(heading('History', 'Every run is saved as a trace in the runs folder.'), el('section', {class: 'card', id: 'history'}, el('p', {class: 'muted', text: 'Loading…'})));
    api('GET', '/api/runs').then(function (data) {
      var sec = document.getElementById('history');
      if (!sec) return;
      sec.textContent = '';
      add(sec, historyTable(data.runs || [], true));
    }).catch(fail);
  }

  // ---- A run, live ------------------------------------------------------------

  function closeLive() {
    if (state.live) { state.live.close(); state.live = null; }
  }

  // LiveRun renders a run's events as they come: a card per turn, the
  // model's reply, the program, its tool calls, output and errors. A
  // nested agent's turns go inside the tool call that runs it.
  function LiveRun(container) {
    this.missions = {};   // trace_id → element holding its turns
    this.turns = {};      // trace_id:turn → {card, parts}
    this.calls = {};      // call_id → tool call element
    this.root = container;
  }

  LiveRun.prototype.mission = function (e) {
    var m = this.missions[e.trace_id];
    if (m) return m;
    var holder = this.root;
    if (e.depth > 0) {
      var call = this.calls[e.parent_call_id];
      holder = call ? call.querySelector('.call-body') : this.root;
      m = el('section', {class: 'mission nested', 'data-trace': e.trace_id},
        el('header', {class: 'mission-head'}, el('h4', {text: 'Agent ' + (e.agent || '')}), el('span', {class: 'meta mstatus', text: 'running'})));
    } else {
      m = el('section', {class: 'mission', 'data-trace': e.trace_id});
    }
    add(holder, m);
    this.missions[e.trace_id] = m;
    return m;
  };

  LiveRun.prototype.turn = function (e) {
    var key = e.trace_id + ':' + e.turn;
    var t = this.turns[key];
    if (t) return t;
    var title = e.turn ? 'Turn ' + e.turn : 'Program';
    var status = el('span', {class: 'tstatus muted', text: ''});
    var meta = el('span', {class: 'meta'});
    var card = el('article', {class: 'turn live-turn', 'data-turn': String(e.turn), 'data-depth': String(e.depth)},
      el('header', {class: 'turn-head'}, el('h3', {text: title}), status, meta));
    var t2 = {card: card, status: status, meta: meta,
      reply: el('div', {class: 'slot-reply'}), program: el('div', {class: 'slot-program'}),
      calls: el('div', {class: 'calls'}), output: el('div', {class: 'slot-output'}), result: el('div', {class: 'slot-result'})};
    add(card, [t2.reply, t2.program, t2.calls, t2.output, t2.result]);
    add(this.mission(e), card);
    this.turns[key] = t2;
    return t2;
  };

  LiveRun.prototype.event = function (e) {
    var t, c;
    switch (e.kind) {
      case 'run.start':
        this.mission(e);
        break;
      case 'llm.start':
        t = this.turn(e);
        t.status.textContent = 'waiting for the model' + (e.attempt > 1 ? ' (attempt ' + e.attempt + ')' : '') + '…';
        t.card.classList.add('waiting');
        break;
      case 'llm.chunk':
        // The reply as the model writes it (the reply so far, scrubbed);
        // the call's llm.stop replaces it with the whole reply.
        t = this.turn(e);
        t.status.textContent = 'the model is writing…';
        t.reply.textContent = '';
        add(t.reply, el('pre', {class: 'prompt reply-text live', text: e.response || ''}));
        break;
      case 'llm.stop':
        t = this.turn(e);
        t.replied = true;
        t.card.classList.remove('waiting');
        t.status.textContent = 'running the program…';
        t.meta.textContent = 'LLM ' + ms(e.duration_ms) + (e.tokens ? ' · tokens ' + tokensText(e.tokens) : '') + (e.model ? ' · ' + e.model : '');
        if (e.response) {
          t.reply.textContent = '';
          add(t.reply, details('Model reply (' + plural(e.response.replace(/\n+$/, '').split('\n').length, 'line') + ')',
            el('pre', {class: 'prompt reply-text', text: e.response}), false, 'reply'));
        }
        break;
      case 'llm.exception':
        t = this.turn(e);
        add(t.result, el('pre', {class: 'error', text: 'LLM call failed: ' + (e.error || '') + (e.retry_in_ms ? ' (retrying in ' + ms(e.retry_in_ms) + ')' : '')}));
        break;
      case 'tool.start':
        t = this.turn(e);
        c = el('details', {class: 'call running', 'data-call': String(e.call_id)},
          el('summary', {}, el('span', {class: 'call-name', text: 'tool/' + e.tool}), ' ', el('code', {class: 'args', text: clip(e.args || '{}', 90)}), ' ',
            el('span', {class: 'badge run cstatus', text: 'running'}), el('span', {class: 'dur'})),
          el('div', {class: 'call-body'}, block('Arguments', code(e.args || '{}'))));
        this.calls[e.call_id] = c;
        add(t.calls, c);
        break;
      case 'tool.stop':
      case 'tool.exception':
        c = this.calls[e.call_id];
        if (!c) { t = this.turn(e); c = el('details', {class: 'call'}, el('summary', {}, el('span', {class: 'call-name', text: 'tool/' + e.tool}), el('span', {class: 'badge cstatus'}), el('span', {class: 'dur'})), el('div', {class: 'call-body'})); add(t.calls, c); }
        c.classList.remove('running');
        var st = c.querySelector('.cstatus');
        st.className = 'badge cstatus ' + (e.kind === 'tool.stop' ? 'ok' : 'fail');
        st.textContent = e.kind === 'tool.stop' ? 'ok' : 'error';
        c.querySelector('.dur').textContent = ms(e.duration_ms);
        var body = c.querySelector('.call-body');
        if (e.kind === 'tool.stop') add(body, block('Result', code(e.result || 'nil', 'value')));
        else add(body, block('Error', el('pre', {class: 'error', text: e.error || ''}), 'err'));
        break;
      case 'turn.stop':
        t = this.turn(e);
        t.card.classList.remove('waiting');
        t.status.textContent = '';
        // A turn whose LLM call never answered (cancelled, timed out,
        // failed) ends with no reply: it is no program error.
        var noReply = !e.program && !t.replied;
        add(t.status, noReply ? el('span', {class: 'badge warn', text: 'no reply'}) : e.error ? el('span', {class: 'badge fail', text: 'error'}) : el('span', {class: 'badge ok', text: 'done'}),
          e.cached ? el('span', {class: 'badge muted', text: 'cached program'}) : null);
        t.meta.textContent = ms(e.duration_ms) + (e.tokens ? ' · tokens ' + tokensText(e.tokens) : '');
        t.program.textContent = '';
        if (e.program) add(t.program, block('Program', code(e.program, 'program')));
        else add(t.program, el('p', {class: 'muted', text: noReply ? 'The model did not reply.' : 'No program in the reply.'}));
        if (e.output && e.output.length) add(t.output, block('Output', el('pre', {class: 'output', text: e.output.join('\n')})));
        if (e.error) { t.card.classList.add('has-error'); add(t.result, block('Error', el('pre', {class: 'error', text: e.error}), 'err')); }
        else if (e.program) add(t.result, block('Result', code(e.result || 'nil', 'value')));
        break;
      case 'run.stop':
      case 'run.exception':
        if (e.depth > 0) {
          var m = this.missions[e.trace_id];
          var ms2 = m && m.querySelector('.mstatus');
          if (ms2) { ms2.textContent = ''; add(ms2, e.fail ? el('span', {class: 'badge fail', text: 'failed'}) : el('span', {class: 'badge ok', text: 'returned'})); }
        }
        break;
    }
  };

  function outcomeBox(sum) {
    if (sum.status === 'running') return el('div', {class: 'outcome'}, statusBadge('running'), el('span', {class: 'muted', text: 'the turns appear as they happen'}));
    var parts = [statusBadge(sum.status)];
    if (sum.fail) {
      parts.push(el('span', {class: 'reason', text: sum.fail.reason}), el('pre', {class: 'message', text: sum.fail.message || ''}));
    } else {
      parts.push(code(sum.result || 'nil', 'value ret'));
    }
    if (sum.replay) {
      parts.push(el('p', {class: sum.replay.matches ? 'ok-text replay-note' : 'err-text replay-note',
        text: sum.replay.matches ? 'The replay matches the recording.' : 'The replay differs from the recording: ' + (sum.replay.mismatch || '')}));
    }
    return el('div', {class: 'outcome ' + (sum.fail ? 'fail' : 'ok')}, parts);
  }

  function statsBox(sum) {
    var t = sum.tokens || {};
    var stat = function (label, text) { return el('div', {class: 'stat'}, el('dt', {text: label}), el('dd', {text: text})); };
    return el('dl', {class: 'stats'}, stat('Turns', num(sum.turns)), stat('LLM requests', num(sum.llm_requests)),
      stat('Tokens in', num(t.input)), stat('Tokens out', num(t.output)), stat('Duration', sum.status === 'running' ? '…' : runTime(sum.duration_ms)));
  }

  function renderRun(id) {
    var head = el('div', {class: 'page-head'}, el('h1', {}, 'Run ', el('span', {class: 'file', text: id})), el('p', {class: 'muted run-meta'}));
    var top = el('section', {class: 'card summary', id: 'run-summary'});
    var actions = el('div', {class: 'actions run-actions'});
    var turns = el('section', {class: 'turns', id: 'turns', 'aria-label': 'Turns'});
    setMain(head, top, actions, turns);
    var live = new LiveRun(turns);
    var cancel = button('Cancel', function () {
      cancel.disabled = true;
      api('POST', runPath(id) + '/cancel').catch(fail);
    }, 'danger', {id: 'cancel'});

    function showSummary(sum) {
      top.textContent = '';
      add(top, outcomeBox(sum), statsBox(sum));
      head.querySelector('.run-meta').textContent = '';
      add(head.querySelector('.run-meta'), link('#/agent/' + encodeURIComponent(sum.agent), sum.agent), ' · ', el('code', {text: sum.model || ''}),
        ' · started ' + when(sum.started_at), sum.replay_of ? [' · replay of ', link('#/run/' + encodeURIComponent(sum.replay_of), sum.replay_of)] : null,
        sum.edited ? ' · prompt or limits edited' : '');
      actions.textContent = '';
      if (sum.status === 'running') { add(actions, cancel); return; }
      add(actions,
        el('a', {class: 'btn primary', id: 'open-trace', href: '/runs/' + encodeURIComponent(id) + '/view', target: '_blank', rel: 'noopener', text: 'Open trace'}),
        button('Replay offline', function () {
          api('POST', runPath(id) + '/replay').then(function (r) { state.started[r.id] = r; location.hash = '#/run/' + encodeURIComponent(r.id); }).catch(fail);
        }, '', {id: 'replay'}),
        button('Compare with the previous run', function () { comparePrevious(sum); }, '', {id: 'compare-prev'}),
        el('a', {class: 'btn', href: runPath(id) + '/trace', download: id + '.json', text: 'Download trace'}),
        button('Run again', function () { location.hash = '#/agent/' + encodeURIComponent(sum.agent); }, ''));
    }

    // The running summary counts the root mission's turns, LLM requests
    // and tokens as their events arrive, as the saved run will.
    var running = null;
    function countLive(e) {
      if (!running || e.depth !== 0) return;
      if (e.kind === 'turn.stop') running.turns++;
      else if (e.kind === 'llm.stop' || e.kind === 'llm.exception') {
        running.llm_requests++;
        if (e.tokens) { running.tokens.input += e.tokens.input || 0; running.tokens.output += e.tokens.output || 0; }
      } else return;
      top.textContent = '';
      add(top, outcomeBox(running), statsBox(running));
    }

    closeLive();
    var src = new EventSource(runPath(id) + '/events');
    state.live = src;
    var ended = false;
    src.addEventListener('agent', function (m) {
      var e;
      try { e = JSON.parse(m.data); } catch (err) { return; }
      live.event(e);
      if (!top.firstChild && e.kind === 'run.start' && e.depth === 0) {
        var p = state.started[id] || {};
        running = {status: 'running', id: id, agent: p.agent || e.agent || '', model: p.model || '', started_at: e.time,
          turns: 0, llm_requests: 0, tokens: {input: 0, output: 0}};
        showSummary(running);
      }
      countLive(e);
    });
    src.addEventListener('done', function (m) {
      ended = true;
      src.close();
      if (state.live === src) state.live = null;
      var sum;
      try { sum = JSON.parse(m.data); } catch (err) { return; }
      running = null;
      showSummary(sum);
      document.body.setAttribute('data-run-done', id);
      if (!turns.firstChild) {
        // A saved run from before: its turns come from the saved detail.
        api('GET', runPath(id)).then(function (d) { add(turns, savedTurns(d)); }).catch(fail);
      }
    });
    src.onerror = function () {
      if (ended) return;
      if (src.readyState === EventSource.CLOSED) { toast('The run\'s stream closed: is ' + state.name + ' still running?', true); }
    };
  }

  // savedTurns renders a finished run's turns from its saved detail.
  function savedTurns(d) {
    return (d.turns || []).map(function (t) {
      // A turn whose LLM call never answered (cancelled, timed out,
      // failed) has failed attempts and no reply: not done, and no
      // program error.
      var cut = !t.program && !t.response && (t.llm_retries || []).length > 0;
      var calls = (t.tool_calls || []).map(function (c) {
        return details([el('span', {class: 'call-name', text: 'tool/' + c.name}), ' ', el('code', {class: 'args', text: clip(c.args || '{}', 90)}), ' ',
          el('span', {class: 'badge ' + (c.error ? 'fail' : 'ok'), text: c.error ? 'error' : 'ok'}), el('span', {class: 'dur', text: ms(c.duration_ms)})],
          el('div', {class: 'call-body'}, block('Arguments', code(c.args || '{}')),
            c.error ? block('Error', el('pre', {class: 'error', text: c.error}), 'err') : block('Result', code(c.result || 'nil', 'value'))), false, 'call');
      });
      return el('article', {class: 'turn' + (t.error ? ' has-error' : ''), 'data-turn': String(t.number)},
        el('header', {class: 'turn-head'}, el('h3', {text: 'Turn ' + t.number}),
          cut ? el('span', {class: 'badge warn', text: 'no reply'}) : t.error ? el('span', {class: 'badge fail', text: 'error'}) : el('span', {class: 'badge ok', text: 'done'}),
          el('span', {class: 'meta', text: ms(t.duration_ms) + ' · tokens ' + tokensText(t.tokens)})),
        (t.llm_retries || []).length ? block('LLM attempts that failed', el('ol', {class: 'retries'}, t.llm_retries.map(function (a) {
          return el('li', {value: String(a.attempt)}, a.class ? el('span', {class: 'badge fail', text: a.class}) : null, ' ',
            el('span', {text: a.error}), a.wait_ms ? el('span', {class: 'meta', text: ' · retried after ' + ms(a.wait_ms)}) : null);
        })), 'err') : null,
        t.response ? details('Model reply', el('pre', {class: 'prompt reply-text', text: t.response}), false, 'reply') : null,
        t.program ? block('Program', code(t.program, 'program')) : el('p', {class: 'muted', text: cut ? 'The model did not reply.' : 'No program in the reply.'}),
        calls.length ? el('div', {class: 'calls'}, calls) : null,
        t.output && t.output.length ? block('Output', el('pre', {class: 'output', text: t.output.join('\n')})) : null,
        t.error ? block('Error', el('pre', {class: 'error', text: t.error}), 'err') : block('Result', code(t.result || 'nil', 'value')));
    });
  }

  function comparePrevious(sum) {
    api('GET', '/api/runs?agent=' + encodeURIComponent(sum.agent)).then(function (data) {
      var runs = (data.runs || []).filter(function (r) { return r.status !== 'running'; });
      var i = runs.findIndex(function (r) { return r.id === sum.id; });
      var prev = i >= 0 ? runs[i + 1] : runs[0];
      if (!prev || prev.id === sum.id) { toast('No earlier run of ' + sum.agent + ' to compare with.'); return; }
      location.hash = '#/compare/' + encodeURIComponent(prev.id) + '/' + encodeURIComponent(sum.id);
    }).catch(fail);
  }

  // ---- Compare two runs ----------------------------------------------------------

  // lineDiff marks the lines of a and b that the other lacks (a longest
  // common subsequence of lines; texts too long for it are compared whole).
  function lineDiff(a, b) {
    var x = (a || '').split('\n'), y = (b || '').split('\n');
    var n = x.length, m = y.length;
    var onlyA = new Array(n).fill(true), onlyB = new Array(m).fill(true);
    if (n * m > 250000) {
      if (a === b) { onlyA.fill(false); onlyB.fill(false); }
      return {a: x, b: y, onlyA: onlyA, onlyB: onlyB};
    }
    var L = [];
    for (var i = 0; i <= n; i++) L.push(new Uint32Array(m + 1));
    for (i = n - 1; i >= 0; i--) for (var j = m - 1; j >= 0; j--) L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
    i = 0; j = 0;
    while (i < n && j < m) {
      if (x[i] === y[j]) { onlyA[i] = false; onlyB[j] = false; i++; j++; }
      else if (L[i + 1][j] >= L[i][j + 1]) i++;
      else j++;
    }
    return {a: x, b: y, onlyA: onlyA, onlyB: onlyB};
  }

  function diffPre(lines, only, cls) {
    return el('pre', {class: 'diff ' + cls}, lines.map(function (l, i) {
      return el('span', {class: only[i] ? 'dl changed' : 'dl', text: l + '\n'});
    }));
  }

  function compareRow(label, left, right, same) {
    // same === null: a figure that is not expected to match (time).
    var badge = same === null ? null : same ? el('span', {class: 'badge muted', text: 'same'}) : el('span', {class: 'badge warn', text: 'differs'});
    return el('div', {class: 'cmp-row' + (same === null ? '' : same ? ' same' : ' differs')},
      el('div', {class: 'cmp-label'}, label, badge),
      el('div', {class: 'cmp-cell'}, left), el('div', {class: 'cmp-cell'}, right));
  }

  function renderCompare(a, b) {
    setMain(heading('Compare', a + '  ↔  ' + b), el('p', {class: 'muted', id: 'cmp-loading', text: 'Loading…'}));
    Promise.all([api('GET', runPath(a)), api('GET', runPath(b))]).then(function (ds) {
      var A = ds[0], B = ds[1];
      var sa = A.summary, sb = B.summary;
      var head = el('div', {class: 'cmp-row cmp-head'}, el('div', {}),
        [sa, sb].map(function (s) {
          return el('div', {class: 'cmp-cell'}, el('h2', {}, link('#/run/' + encodeURIComponent(s.id), when(s.started_at))),
            el('p', {class: 'muted'}, s.agent + ' · ', el('code', {text: s.model || ''})), outcomeBox(s));
        }));
      var rows = [head];
      var ta = sa.tokens || {}, tb = sb.tokens || {};
      var tokA = num(ta.input) + ' in / ' + num(ta.output) + ' out', tokB = num(tb.input) + ' in / ' + num(tb.output) + ' out';
      rows.push(compareRow('Tokens', el('span', {class: 'big', text: tokA}), el('span', {class: 'big', text: tokB}), tokA === tokB));
      rows.push(compareRow('Turns', el('span', {class: 'big', text: num(sa.turns)}), el('span', {class: 'big', text: num(sb.turns)}), sa.turns === sb.turns));
      rows.push(compareRow('Time', el('span', {text: runTime(sa.duration_ms)}), el('span', {text: runTime(sb.duration_ms)}), null));
      var pd = lineDiff(A.prompt, B.prompt);
      rows.push(compareRow('Prompt', diffPre(pd.a, pd.onlyA, 'left'), diffPre(pd.b, pd.onlyB, 'right'), A.prompt === B.prompt));
      if (A.system !== B.system) {
        var sd = lineDiff(A.system, B.system);
        rows.push(compareRow('System prompt', details('shown to the model', diffPre(sd.a, sd.onlyA, 'left')), details('shown to the model', diffPre(sd.b, sd.onlyB, 'right')), false));
      }
      var n = Math.max((A.turns || []).length, (B.turns || []).length);
      for (var i = 0; i < n; i++) {
        var x = (A.turns || [])[i], y = (B.turns || [])[i];
        var px = x ? x.program || '' : null, py = y ? y.program || '' : null;
        var cell = function (t, p) { return t ? el('div', {}, code(p || ';; no program', 'program'), t.error ? el('pre', {class: 'error', text: t.error}) : code(t.result || 'nil', 'value')) : el('p', {class: 'muted', text: 'no such turn'}); };
        rows.push(compareRow('Turn ' + (i + 1), cell(x, px), cell(y, py), px === py && !!x && !!y && (x.result === y.result) && (x.error === y.error)));
      }
      var ra = sa.fail ? sa.fail.reason + ': ' + sa.fail.message : sa.result || '';
      var rb = sb.fail ? sb.fail.reason + ': ' + sb.fail.message : sb.result || '';
      rows.push(compareRow('Result', code(ra || 'nil', 'value'), code(rb || 'nil', 'value'), ra === rb));
      setMain(heading('Compare', sa.agent === sb.agent ? sa.agent : sa.agent + ' and ' + sb.agent), el('section', {class: 'card compare', id: 'compare-view'}, rows));
    }).catch(function (e) { fail(e); var l = document.getElementById('cmp-loading'); if (l) l.textContent = e.message; });
  }

  // ---- Routing -------------------------------------------------------------------

  function route() {
    closeLive();
    document.body.removeAttribute('data-run-done');
    markCurrent();
    var h = location.hash.replace(/^#\/?/, '');
    var parts = h.split('/').map(function (p) { try { return decodeURIComponent(p); } catch (e) { return p; } });
    switch (parts[0]) {
      case 'agent': renderAgent(parts.slice(1).join('/')); break;
      case 'run': renderRun(parts[1]); break;
      case 'history': renderHistory(); break;
      case 'compare': renderCompare(parts[1], parts[2]); break;
      default: renderHome();
    }
    document.body.setAttribute('data-view', parts[0] || 'home');
  }

  window.addEventListener('hashchange', route);
  loadAgents().then(route).catch(function (e) {
    fail(e);
    setMain(el('p', {class: 'note error', text: e.message}));
  });
})();
