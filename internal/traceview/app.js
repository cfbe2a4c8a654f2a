// The trace viewer of "ptc trace view": renders the ptc-trace JSON of the
// page's data element (id trace-data), with the helpers of lib.js.
// Vanilla JavaScript, no network.
// Every text of the trace goes into the page through textContent, never
// as HTML.
(function () {
  'use strict';

  var V = PTCView;
  var el = V.el, add = V.add, num = V.num, plural = V.plural, ms = V.ms, code = V.code, value = V.value,
    clip = V.clip, block = V.block, details = V.details, tokensText = V.tokensText;

  // Missions are numbered in the order they are met, depth first.
  var missions = [];

  function outcome(step) {
    if (step.ok) {
      return el('div', {class: 'outcome ok'},
        el('span', {class: 'badge ok', text: 'returned'}), value(step.return, 'ret'));
    }
    var f = step.fail || {reason: 'unknown', message: ''};
    return el('div', {class: 'outcome fail'},
      el('span', {class: 'badge fail', text: 'failed'}),
      el('span', {class: 'reason', text: f.reason + (f.op ? ' (' + f.op + ')' : '')}),
      el('pre', {class: 'message', text: f.message || ''}),
      f.details ? details('Details', value(f.details), false, 'fail-details') : null);
  }

  function stat(label, text) {
    return el('div', {class: 'stat'}, el('dt', {text: label}), el('dd', {text: text}));
  }

  function summary(step, redacted) {
    var u = step.usage || {}, tu = step.total_usage || {};
    var stats = el('dl', {class: 'stats'},
      stat('Turns', num(u.turns)),
      stat('LLM requests', num(u.llm_requests)),
      stat('Tokens in', num((u.tokens || {}).input)),
      stat('Tokens out', num((u.tokens || {}).output)),
      stat('Duration', ms(u.duration_ms)));
    var nested = null;
    if (tu.llm_requests !== u.llm_requests || tu.turns !== u.turns) {
      nested = el('p', {class: 'nested-usage', text: 'With nested agents: ' + plural(tu.turns, 'turn') + ', ' +
        plural(tu.llm_requests, 'LLM request') + ', tokens ' + tokensText(tu.tokens) + ', ' + ms(tu.duration_ms) + ' of agent time'});
    }
    var meta = el('p', {class: 'meta'},
      el('span', {class: 'badge ' + (redacted ? 'muted' : 'warn'), text: redacted ? 'redacted' : 'raw: firewalled values shown'}),
      ' trace ', el('code', {text: step.trace_id || '—'}));
    var parts = [outcome(step), stats, nested, meta];
    if (step.signature) parts.push(block('Signature', code(step.signature)));
    if (step.warnings && step.warnings.length) {
      parts.push(block('Warnings', el('ul', {class: 'warnings'}, step.warnings.map(function (w) { return el('li', {text: w}); }))));
    }
    if (step.system_prompt) {
      parts.push(details([el('span', {text: 'System prompt'}), el('span', {class: 'muted', text: ' · ' + num(step.system_prompt.length) + ' characters'})],
        el('pre', {class: 'prompt', text: step.system_prompt}), false, 'sysprompt'));
    }
    return el('section', {class: 'summary card', 'aria-label': 'Outcome and usage'}, parts);
  }

  // The timeline: one row per turn and per tool call, nested agents
  // indented under the call that ran them. A turn's bar shows its LLM call
  // (the darker part) then its program; calls sit where they started.
  function layout(step, t0, depth, rows, mid, who) {
    var t = t0;
    (step.turns || []).forEach(function (turn) {
      var dur = turn.duration_ms || 0, llm = Math.min(turn.llm_duration_ms || 0, dur);
      var tid = mid + '-t' + turn.number;
      rows.push({kind: turn.error ? 'k-turn k-err' : 'k-turn', depth: depth, start: t, dur: dur, llm: llm,
        label: who + 'turn ' + turn.number, target: tid, title: who + 'turn ' + turn.number + ': ' + ms(dur) + ' (LLM ' + ms(llm) + ')'});
      var calls = turn.tool_calls || [];
      var starts = calls.map(function (c) { return Date.parse(c.start); });
      var first = Math.min.apply(null, starts.filter(isFinite).concat([Infinity]));
      calls.forEach(function (c, i) {
        var off = isFinite(starts[i]) && isFinite(first) ? starts[i] - first : 0;
        var cs = t + llm + off, cid = tid + '-c' + i;
        rows.push({kind: c.child ? 'k-agent' : (c.error ? 'k-call k-err' : 'k-call'), depth: depth + 1, start: cs, dur: c.duration_ms || 0,
          label: c.name, target: cid, title: c.name + ': ' + ms(c.duration_ms) + (c.error ? ' (error)' : '')});
        if (c.child) layout(c.child, cs, depth + 2, rows, c.child.__mid, c.name + ' · ');
      });
      t += dur;
    });
    return t;
  }

  function timeline(step) {
    var rows = [];
    layout(step, 0, 0, rows, step.__mid, '');
    if (!rows.length) return null;
    var total = (step.usage || {}).duration_ms || 0;
    rows.forEach(function (r) { total = Math.max(total, r.start + r.dur); });
    if (total <= 0) total = 1;
    var pct = function (x) { return Math.max(0, Math.min(100, x / total * 100)); };
    var axis = el('div', {class: 'tl-axis', 'aria-hidden': 'true'}, [0, 0.25, 0.5, 0.75, 1].map(function (f) {
      return el('span', {style: 'left:' + f * 100 + '%', text: ms(total * f)});
    }));
    var list = el('ol', {class: 'tl-rows'}, rows.map(function (r) {
      var left = pct(r.start), width = Math.max(pct(r.start + r.dur) - left, 0.3);
      var bar = el('a', {class: 'tl-bar ' + r.kind, href: '#' + r.target, title: r.title, style: 'left:' + left + '%;width:' + width + '%',
        'aria-label': r.title});
      if (r.llm && r.dur) add(bar, el('span', {class: 'tl-llm', style: 'width:' + (r.llm / r.dur * 100) + '%'}));
      return el('li', {class: 'tl-row', style: '--depth:' + r.depth},
        el('a', {class: 'tl-label ' + r.kind, href: '#' + r.target, tabindex: '-1', text: r.label}),
        el('div', {class: 'tl-track'}, bar));
    }));
    var legend = el('p', {class: 'legend'},
      el('span', {class: 'sw k-llm'}), ' LLM call ', el('span', {class: 'sw k-turn'}), ' program ',
      el('span', {class: 'sw k-call'}), ' tool call ', el('span', {class: 'sw k-agent'}), ' nested agent ',
      el('span', {class: 'sw k-err'}), ' error');
    return el('section', {class: 'timeline card', 'aria-label': 'Timeline'}, el('h2', {text: 'Timeline'}), legend, axis, list);
  }

  function numberMissions(step) {
    step.__mid = 'm' + missions.length;
    missions.push(step);
    (step.turns || []).forEach(function (t) {
      (t.tool_calls || []).forEach(function (c) { if (c.child) numberMissions(c.child); });
    });
  }

  function toolCall(c, cid, depth) {
    var status = c.error ? el('span', {class: 'badge fail', text: 'error'}) : el('span', {class: 'badge ok', text: 'ok'});
    var head = [el('span', {class: 'call-name', text: 'tool/' + c.name}), ' ',
      el('code', {class: 'args', text: c.args ? clip(c.args.lisp, 90) : '{}'}), ' ', status, ' ',
      c.child ? el('span', {class: 'badge agent', text: 'agent'}) : null,
      el('span', {class: 'dur', text: ms(c.duration_ms)})];
    var body = el('div', {class: 'call-body'},
      block('Arguments', c.args ? value(c.args) : code('{}')),
      c.error ? block('Error', el('pre', {class: 'error', text: c.error}), 'err') : block('Result', value(c.result)),
      c.warnings && c.warnings.length ? block('Warnings', el('ul', {class: 'warnings'}, c.warnings.map(function (w) { return el('li', {text: w}); }))) : null,
      c.start ? el('p', {class: 'muted small', text: 'started ' + c.start}) : null,
      c.child ? mission(c.child, c.name, depth + 1) : null);
    var d = details(head, body, !!c.child, 'call');
    d.id = cid;
    return d;
  }

  function replySummary(text) {
    return 'Reply (' + plural(text.replace(/\n+$/, '').split('\n').length, 'line') + ')';
  }

  function turnCard(turn, mid, depth) {
    var tid = mid + '-t' + turn.number;
    var head = el('header', {class: 'turn-head'},
      el('h3', {}, el('a', {href: '#' + tid, class: 'anchor', text: 'Turn ' + turn.number})),
      turn.error ? el('span', {class: 'badge fail', text: 'error'}) : null,
      (turn.tool_calls || []).length ? el('span', {class: 'badge muted', text: plural(turn.tool_calls.length, 'tool call')}) : null,
      (turn.llm_retries || []).length ? el('span', {class: 'badge warn', text: plural(turn.llm_retries.length, 'failed LLM attempt')}) : null,
      el('span', {class: 'meta', text: ms(turn.duration_ms) + ' (LLM ' + ms(turn.llm_duration_ms) + ') · tokens ' + tokensText(turn.tokens)}));
    var parts = [head];
    // Failed attempts of the turn's LLM call: the requests the usage
    // counts beyond one per turn.
    var retries = turn.llm_retries || [];
    if (retries.length) {
      parts.push(block('LLM attempts that failed', el('ol', {class: 'retries'}, retries.map(function (a) {
        return el('li', {value: String(a.attempt)},
          a.class ? el('span', {class: 'badge fail', text: a.class}) : null, ' ',
          el('span', {text: a.error}),
          a.wait_ms ? el('span', {class: 'meta', text: ' · retried after ' + ms(a.wait_ms)}) : null);
      })), 'err'));
    }
    // The model's reply, collapsed: beside the program it repeats, it is
    // in the group below; without a program it is all the turn has.
    var reply = turn.response ? details(replySummary(turn.response), el('pre', {class: 'prompt', text: turn.response}), false, 'reply') : null;
    if (turn.program) parts.push(block('Program', code(turn.program, 'program')));
    else {
      parts.push(el('p', {class: 'muted', text: 'No program in the reply.'}));
      if (reply) parts.push(reply);
    }
    var calls = turn.tool_calls || [];
    if (calls.length) {
      parts.push(block('Tool calls', el('div', {class: 'calls'}, calls.map(function (c, i) { return toolCall(c, tid + '-c' + i, depth); }))));
    }
    if (turn.output && turn.output.length) parts.push(block('Output', el('pre', {class: 'output', text: turn.output.join('\n')})));
    if (turn.error) parts.push(block('Error', el('pre', {class: 'error', text: turn.error}), 'err'));
    else if (turn.program) parts.push(block('Result', value(turn.result)));
    var debug = [];
    if (reply && turn.program) debug.push(reply);
    if (turn.feedback) debug.push(details('Feedback sent back', el('pre', {class: 'prompt', text: turn.feedback})));
    if (turn.memory) {
      var names = Object.keys(turn.memory).sort();
      debug.push(details('Memory after the turn (' + plural(names.length, 'var') + ')', el('dl', {class: 'memory'}, names.map(function (n) {
        return el('div', {class: 'var'}, el('dt', {}, el('code', {text: n})), el('dd', {}, value(turn.memory[n])));
      }))));
    }
    if (debug.length) parts.push(el('div', {class: 'debug'}, debug));
    return el('article', {class: 'turn' + (turn.error ? ' has-error' : ''), id: tid, tabindex: '-1'}, parts);
  }

  function mission(step, name, depth) {
    var mid = step.__mid;
    var u = step.usage || {};
    var cls = 'mission' + (depth > 0 ? ' nested' : '');
    var head = el('header', {class: 'mission-head'},
      el(depth > 0 ? 'h4' : 'h2', {text: depth > 0 ? 'Agent ' + name : 'Turns'}),
      depth > 0 ? el('span', {class: step.ok ? 'badge ok' : 'badge fail', text: step.ok ? 'returned' : 'failed'}) : null,
      el('span', {class: 'meta', text: plural(u.turns, 'turn') + ' · ' + ms(u.duration_ms) + ' · tokens ' + tokensText(u.tokens) +
        (step.trace_id ? ' · trace ' + step.trace_id.slice(0, 8) : '')}));
    var parts = [head];
    if (depth > 0) {
      if (step.ok) parts.push(block('Returned', value(step['return'])));
      else parts.push(block('Failed', el('pre', {class: 'error', text: (step.fail || {}).reason + ': ' + (step.fail || {}).message}), 'err'));
      if (step.system_prompt) {
        parts.push(details('System prompt', el('pre', {class: 'prompt', text: step.system_prompt}), false, 'sysprompt'));
      }
    }
    if (!(step.turns || []).length) parts.push(el('p', {class: 'muted', text: 'No turns recorded.'}));
    (step.turns || []).forEach(function (t) { parts.push(turnCard(t, mid, depth)); });
    return el('section', {class: cls, id: mid, 'aria-label': depth > 0 ? 'Agent ' + name : 'Turns'}, parts);
  }

  function toolbar() {
    var expand = el('button', {type: 'button', class: 'btn', text: 'Expand all'});
    var collapse = el('button', {type: 'button', class: 'btn', text: 'Collapse all'});
    function setAll(open) {
      document.querySelectorAll('#missions details').forEach(function (d) { d.open = open; });
    }
    expand.addEventListener('click', function () { setAll(true); });
    collapse.addEventListener('click', function () { setAll(false); });
    return el('div', {class: 'toolbar', role: 'toolbar', 'aria-label': 'Display'}, expand, collapse,
      el('span', {class: 'muted small', text: 'Keys: j / k next / previous turn'}));
  }

  // j and k move between turns.
  function keys() {
    document.addEventListener('keydown', function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      var tag = (e.target && e.target.tagName) || '';
      if (tag === 'INPUT' || tag === 'TEXTAREA') return;
      if (e.key !== 'j' && e.key !== 'k') return;
      var turns = Array.prototype.slice.call(document.querySelectorAll('article.turn'));
      if (!turns.length) return;
      var cur = turns.indexOf(document.activeElement && document.activeElement.closest ? document.activeElement.closest('article.turn') : null);
      var next = e.key === 'j' ? Math.min(cur + 1, turns.length - 1) : Math.max(cur - 1, 0);
      var t = turns[next];
      var d = t.closest('details:not([open])');
      while (d) { d.open = true; d = d.parentElement && d.parentElement.closest('details:not([open])'); }
      t.focus();
      t.scrollIntoView({block: 'start'});
      e.preventDefault();
    });
  }

  function render() {
    var app = document.getElementById('app');
    var doc;
    try {
      doc = JSON.parse(document.getElementById('trace-data').textContent);
    } catch (err) {
      add(app, el('p', {class: 'note error', text: 'The trace could not be read: ' + err.message}));
      return;
    }
    if (!doc || doc.format !== 'ptc-trace' || !doc.step) {
      add(app, el('p', {class: 'note error', text: 'This is not a ptc trace.'}));
      return;
    }
    if (doc.version > 1) {
      add(app, el('p', {class: 'note', text: 'This trace has format version ' + doc.version + '; this page knows version 1 and shows what it can.'}));
    }
    var step = doc.step;
    numberMissions(step);
    var title = step.ok ? 'returned' : 'failed: ' + ((step.fail || {}).reason || '');
    document.title = title + ' · ' + document.title;
    add(app, [summary(step, doc.redacted === true), timeline(step), toolbar(),
      el('div', {id: 'missions'}, mission(step, '', 0))]);
    document.body.setAttribute('data-rendered', String(missions.length));
    keys();
  }

  render();
})();
