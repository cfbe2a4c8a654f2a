// What the trace page and the ptc dev page share: building elements,
// numbers and durations, the PTC-Lisp highlighter, printed values. Every
// text goes into the page through textContent, never as HTML.
var PTCView = (function () {
  'use strict';

  // el builds an element: el('div', {class: 'x', text: 'y'}, child...).
  function el(tag, attrs) {
    var e = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        var v = attrs[k];
        if (v === undefined || v === null || v === false) return;
        if (k === 'text') e.textContent = String(v);
        else if (k === 'class') e.className = v;
        else if (k === 'style') e.setAttribute('style', v);
        else e.setAttribute(k, v === true ? '' : String(v));
      });
    }
    for (var i = 2; i < arguments.length; i++) add(e, arguments[i]);
    return e;
  }

  function add(parent, child) {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { add(parent, c); }); return; }
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }

  // Numbers and durations.
  function num(n) { return (n || 0).toLocaleString('en-US'); }
  function plural(n, word) { return num(n) + ' ' + word + (n === 1 ? '' : 's'); }
  function ms(v) {
    v = v || 0;
    if (v < 1) return Math.round(v * 1000) + ' µs';
    if (v < 10) return v.toFixed(2) + ' ms';
    if (v < 1000) return Math.round(v) + ' ms';
    if (v < 60000) return (v / 1000).toFixed(2) + ' s';
    var m = Math.floor(v / 60000);
    return m + ' min ' + Math.round((v - m * 60000) / 1000) + ' s';
  }

  // The PTC-Lisp highlighter: a small tokenizer for programs and printed values.
  var SPECIAL = {};
  ('def defn defn- defonce let letfn fn fn* if if-let if-not if-some when when-let when-not when-some when-first ' +
   'cond condp case do loop recur return fail and or not doseq for dotimes while -> ->> as-> some-> some->> cond-> ' +
   'cond->> try catch finally throw quote var pmap pcalls').split(' ').forEach(function (w) { SPECIAL[w] = true; });
  var DELIM = ' \t\r\n,()[]{}";';

  function tokenize(src) {
    var out = [], i = 0, n = src.length;
    function push(cls, j) { out.push([cls, src.slice(i, j)]); i = j; }
    while (i < n) {
      var c = src[i], d = src[i + 1], j;
      if (c === ';') {
        j = src.indexOf('\n', i);
        push('com', j < 0 ? n : j);
      } else if (c === '"' || (c === '#' && d === '"')) {
        j = i + (c === '#' ? 2 : 1);
        while (j < n && src[j] !== '"') { if (src[j] === '\\') j++; j++; }
        push(c === '#' ? 're' : 'str', Math.min(j + 1, n));
      } else if (' \t\r\n,'.indexOf(c) >= 0) {
        j = i;
        while (j < n && ' \t\r\n,'.indexOf(src[j]) >= 0) j++;
        push(null, j);
      } else if ('()[]{}'.indexOf(c) >= 0) {
        push('paren', i + 1);
      } else if (c === '#' && (d === '{' || d === '(')) {
        push('paren', i + 2);
      } else if (c === '\\') {
        j = i + 2;
        while (j < n && DELIM.indexOf(src[j]) < 0) j++;
        push('str', j);
      } else if (c === '<' && src.slice(i, i + 12) === '<Firewalled>') {
        push('fw', i + 12);
      } else {
        j = i + 1;
        while (j < n && DELIM.indexOf(src[j]) < 0) j++;
        var tok = src.slice(i, j), prev = out.length ? out[out.length - 1][1] : '';
        var cls = null;
        if (tok[0] === ':') cls = 'kw';
        else if (/^[-+]?\d/.test(tok) || /^##(-?Inf|NaN)$/.test(tok)) cls = 'num';
        else if (tok === 'nil' || tok === 'true' || tok === 'false') cls = 'const';
        else if (tok.indexOf('tool/') === 0) cls = 'tool';
        else if (/^(ctx|data|memory)\//.test(tok)) cls = 'ns';
        else if (SPECIAL[tok] && (prev === '(' || prev === '#(')) cls = 'special';
        else if (prev === '(' || prev === '#(') cls = 'fn';
        else if (tok[0] === '#') cls = 'tag';
        push(cls, j);
      }
    }
    return out;
  }

  // code renders PTC-Lisp text as a highlighted <pre><code>.
  function code(src, cls) {
    var c = el('code', {class: 'lisp'});
    tokenize(src).forEach(function (t) {
      c.appendChild(t[0] ? el('span', {class: 'tok-' + t[0], text: t[1]}) : document.createTextNode(t[1]));
    });
    return el('pre', {class: 'code ' + (cls || '')}, c);
  }

  // value renders a trace value (its printed form), long ones folded.
  function value(v, cls) {
    if (!v) return el('pre', {class: 'code value', text: 'nil'});
    var text = typeof v.lisp === 'string' ? v.lisp : String(JSON.stringify(v.json));
    if (text.length <= 4000) return code(text, 'value ' + (cls || ''));
    var box = el('div', {class: 'long'});
    var shown = code(text.slice(0, 4000) + ' …', 'value ' + (cls || ''));
    var more = el('button', {type: 'button', class: 'btn small', text: 'Show all ' + num(text.length) + ' characters'});
    more.addEventListener('click', function () { box.replaceChild(code(text, 'value ' + (cls || '')), shown); more.remove(); });
    add(box, [shown, more]);
    return box;
  }

  function clip(text, n) {
    text = String(text || '');
    var line = text.split('\n')[0];
    if (line.length > n) return line.slice(0, n) + '…';
    return line.length < text.length ? line + ' …' : line;
  }

  function block(label, body, cls) {
    return el('div', {class: 'block ' + (cls || '')}, el('div', {class: 'label', text: label}), body);
  }

  function details(summary, body, open, cls) {
    return el('details', {class: cls || '', open: !!open}, el('summary', null, summary), body);
  }

  function tokensText(t) {
    t = t || {};
    var s = num(t.input) + ' in / ' + num(t.output) + ' out';
    if (t.cache_read) s += ' (' + num(t.cache_read) + ' cached)';
    return s;
  }

  return {el: el, add: add, num: num, plural: plural, ms: ms, tokenize: tokenize, code: code, value: value,
    clip: clip, block: block, details: details, tokensText: tokensText};
})();
