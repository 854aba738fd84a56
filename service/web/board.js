/* board.js: the web analysis board: draws the position, asks /api/v1/analyze
   for every line's value, plays clicks and player moves, keeps the URL.
   See Copyright Notice in README.md */
'use strict';
(function () {
  const MAX_SIDE = 7, CELL = 70, PAD = 28, API = 'api/v1/';
  const $ = (id) => document.getElementById(id);
  const SVG = 'http://www.w3.org/2000/svg';

  // The game: base (a DBN digit string, or null for the empty board) plus the moves since.
  let st = { rows: 3, cols: 3, base: null, moves: [], redo: [] };
  let game = null;       // derived: lines, owner, toMove, score
  let analysis = null;   // the last answer of /analyze for the current position
  let seq = 0, inflight = null;

  const nlines = (r, c) => 2 * r * c + r + c;
  function boxLines(R, C, r, c) {
    const left = (R + 1) * C + r * (C + 1) + c;
    return [r * C + c, (r + 1) * C + c, left, left + 1];
  }

  // Replays base + moves: which lines are drawn, who owns each box, who moves.
  function derive() {
    const R = st.rows, C = st.cols, n = nlines(R, C);
    const lines = new Array(n).fill(false);
    if (st.base) for (let i = 0; i < n; i++) lines[i] = st.base[i] === '1';
    const owner = new Array(R * C).fill(-1);
    const full = (b) => boxLines(R, C, Math.floor(b / C), b % C).every((l) => lines[l]);
    for (let b = 0; b < R * C; b++) if (full(b)) owner[b] = -2;
    let toMove = 0;
    const score = [0, 0];
    for (const m of st.moves) {
      lines[m] = true;
      let took = 0;
      for (let b = 0; b < R * C; b++)
        if (owner[b] === -1 && full(b)) { owner[b] = toMove; score[toMove]++; took++; }
      if (!took) toMove ^= 1;
    }
    game = { lines, owner, toMove, score, over: lines.every((x) => x) };
  }

  function posText() {
    const R = st.rows, C = st.cols;
    if (!st.base) return `${R}x${C}` + (st.moves.length ? '@' + st.moves.join(',') : '');
    return `${R}x${C}:` + game.lines.map((x) => (x ? '1' : '0')).join('');
  }
  const dbnText = () => `${st.rows}x${st.cols}:` + game.lines.map((x) => (x ? '1' : '0')).join('');

  // Parses RxC, RxC@m1,m2,... or RxC:DBN.  Returns a state or throws an Error naming the problem.
  function parsePos(text) {
    const t = text.trim();
    const m = /^(\d+)x(\d+)(?:(@)([0-9,\s]*)|(:)([01]*))?$/.exec(t);
    if (!m) throw new Error(`'${t}' is not a position: write RxC, RxC@m1,m2,... or RxC:DBN`);
    const R = +m[1], C = +m[2];
    if (R < 1 || C < 1 || R > MAX_SIDE || C > MAX_SIDE) throw new Error(`board ${R}x${C}: this board shows 1x1 to ${MAX_SIDE}x${MAX_SIDE}`);
    const n = nlines(R, C);
    const s = { rows: R, cols: C, base: null, moves: [], redo: [] };
    if (m[5]) {
      if (m[6].length !== n) throw new Error(`DBN has ${m[6].length} digits, a ${R}x${C} board needs ${n} (one per line)`);
      s.base = m[6];
    } else if (m[3]) {
      const seen = new Set();
      for (const part of m[4].split(',').map((x) => x.trim()).filter((x) => x !== '')) {
        const v = +part;
        if (!/^\d+$/.test(part) || v >= n) throw new Error(`move '${part}' is not a line of ${R}x${C} (0..${n - 1})`);
        if (seen.has(v)) throw new Error(`line ${v} is drawn twice`);
        seen.add(v);
        s.moves.push(v);
      }
    }
    return s;
  }

  function showError(msg) {
    const e = $('error');
    e.textContent = msg || '';
    e.hidden = !msg;
  }

  function el(name, attrs, parent) {
    const e = document.createElementNS(SVG, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  const fmt = (v) => (v > 0 ? '+' + v : String(v));

  // Line geometry: endpoints in board units.
  function lineEnds(id) {
    const R = st.rows, C = st.cols, h = (R + 1) * C;
    if (id < h) { const r = Math.floor(id / C), c = id % C; return [c, r, c + 1, r]; }
    const k = id - h, r = Math.floor(k / (C + 1)), c = k % (C + 1);
    return [c, r, c, r + 1];
  }

  function draw() {
    const R = st.rows, C = st.cols, svg = $('board');
    svg.textContent = '';
    svg.setAttribute('viewBox', `0 0 ${C * CELL + 2 * PAD} ${R * CELL + 2 * PAD}`);
    const X = (x) => PAD + x * CELL;
    const vals = new Map(), best = new Set();
    if (analysis && analysis.exact !== undefined) {
      for (const mv of analysis.moves || []) vals.set(mv.move, mv.value);
      for (const b of analysis.best || []) best.add(b);
    }
    const top = analysis && analysis.value !== null && analysis.value !== undefined ? analysis.value : null;
    for (let b = 0; b < R * C; b++) {
      const o = game.owner[b];
      if (o === -1) continue;
      const r = Math.floor(b / C), c = b % C, cls = o === -2 ? 'pq' : 'p' + o;
      el('rect', { class: 'box ' + cls, x: X(c), y: X(r), width: CELL, height: CELL }, svg);
      const t = el('text', { class: 'owner ' + cls, x: X(c + 0.5), y: X(r + 0.5) }, svg);
      t.textContent = o === -2 ? '#' : o ? 'B' : 'A';
    }
    const last = st.moves.length ? st.moves[st.moves.length - 1] : -1;
    for (let id = 0; id < nlines(R, C); id++) {
      const [x1, y1, x2, y2] = lineEnds(id), drawn = game.lines[id];
      const g = el('g', { class: 'line ' + (drawn ? 'drawn' : 'undrawn'), 'data-line': id }, svg);
      if (id === last) g.classList.add('last');
      const horiz = y1 === y2, w = CELL * 0.32;
      el('rect', horiz
        ? { class: 'hit', x: X(x1) + 6, y: X(y1) - w / 2, width: CELL - 12, height: w }
        : { class: 'hit', x: X(x1) - w / 2, y: X(y1) + 6, width: w, height: CELL - 12 }, g);
      el('line', { class: 'seg', x1: X(x1), y1: X(y1), x2: X(x2), y2: X(y2) }, g);
      if (drawn) { g.setAttribute('aria-label', `line ${id}, drawn`); continue; }
      g.setAttribute('tabindex', '0');
      g.setAttribute('role', 'button');
      let label = `line ${id}`;
      if (vals.has(id)) {
        const v = vals.get(id);
        g.setAttribute('data-value', v);
        g.classList.add(best.has(id) ? 'best' : top !== null && top - v <= 2 ? 'good' : 'bad');
        const t = el('text', { class: 'val', x: (X(x1) + X(x2)) / 2, y: (X(y1) + X(y2)) / 2 }, g);
        t.textContent = fmt(v);
        label += `, value ${fmt(v)}${best.has(id) ? ', best' : ''}`;
      }
      g.setAttribute('aria-label', label);
      g.addEventListener('click', () => play(id));
      g.addEventListener('keydown', (ev) => lineKey(ev, id));
    }
    for (let r = 0; r <= R; r++) for (let c = 0; c <= C; c++) el('circle', { class: 'dot', cx: X(c), cy: X(r), r: 5 }, svg);
  }

  function lineKey(ev, id) {
    if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); play(id); return; }
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[ev.key];
    if (!step) return;
    ev.preventDefault();
    const n = nlines(st.rows, st.cols);
    for (let k = 1; k <= n; k++) {
      const j = (id + step * k + n * 2) % n;
      if (!game.lines[j]) { focusLine(j); return; }
    }
  }
  function focusLine(id) {
    const g = document.querySelector(`#board .line[data-line="${id}"]`);
    if (g) g.focus();
  }

  function showStatus() {
    const who = (p) => `<span class="p${p ? 'B' : 'A'}">${p ? 'B' : 'A'}</span>`;
    const known = !st.base;
    $('tomove').innerHTML = game.over ? 'Game over' : known ? `${who(game.toMove)} to move` : 'Player to move';
    $('score').innerHTML = known ? `&nbsp; score ${who(0)} ${game.score[0]} : ${game.score[1]} ${who(1)}`
      : '&nbsp; (loaded from DBN: earlier boxes #)';
    const v = $('value'), ex = $('exact'), src = $('source');
    v.removeAttribute('data-value');
    ex.className = '';
    ex.textContent = '';
    src.textContent = '';
    if (!analysis) { v.textContent = '…'; return; }
    if (analysis.error) { v.textContent = '—'; src.textContent = analysis.error; return; }
    if (analysis.value !== null) { v.textContent = fmt(analysis.value); v.setAttribute('data-value', analysis.value); }
    else v.textContent = `between ${fmt(analysis.lower)} and ${fmt(analysis.upper)}`;
    ex.textContent = analysis.exact ? 'exact' : 'not exact';
    ex.className = analysis.exact ? 'exact' : 'inexact';
    let s = `source: ${analysis.source}`;
    if (analysis.nodes !== undefined) s += `, ${analysis.nodes.toLocaleString()} nodes`;
    if (!analysis.exact) s += ' (the search stopped at the server\'s node budget: bounds only)';
    if (known && analysis.value !== null && !game.over)
      s += `; optimal play ends ${game.score[game.toMove] - game.score[1 - game.toMove] + analysis.value >= 0 ? 'level or better' : 'behind'} for ${game.toMove ? 'B' : 'A'}`;
    src.textContent = s;
  }

  function setBusy(busy) {
    $('spinner').hidden = !busy;
    document.body.dataset.state = busy ? 'loading' : 'ready';
  }

  // Redraws, updates the URL and the texts, and asks the server for the analysis.
  function refresh() {
    derive();
    const text = posText();
    $('pos').value = text;
    $('dbn').textContent = dbnText();
    $('rows').value = st.rows;
    $('cols').value = st.cols;
    $('undo').disabled = !st.moves.length;
    $('redo').disabled = !st.redo.length;
    history.replaceState(null, '', '?pos=' + encodeURIComponent(text));
    analysis = null;
    draw();
    showStatus();
    analyze(text);
  }

  async function analyze(text) {
    const my = ++seq;
    if (inflight) inflight.abort();
    if (nlines(st.rows, st.cols) > 64) {
      analysis = { error: 'no values: the oracle answers boards of at most 64 lines (players still move)' };
      showStatus();
      setBusy(false);
      return;
    }
    inflight = new AbortController();
    setBusy(true);
    try {
      const res = await fetch(API + 'analyze?pos=' + encodeURIComponent(text), { signal: inflight.signal });
      const body = await res.json();
      if (my !== seq) return;
      analysis = res.ok ? body : { error: body.error || `HTTP ${res.status}` };
      if (!res.ok) showError(body.error);
    } catch (e) {
      if (my !== seq) return;
      analysis = { error: e.name === 'AbortError' ? 'cancelled' : 'cannot reach dab serve: ' + e.message };
    }
    draw();
    showStatus();
    setBusy(false);
  }

  function play(id) {
    if (game.lines[id]) return;
    showError('');
    st.moves.push(id);
    st.redo = [];
    refresh();
    focusLine(nextUndrawn(id));
  }
  function nextUndrawn(id) {
    const n = nlines(st.rows, st.cols);
    for (let k = 1; k <= n; k++) if (!game.lines[(id + k) % n]) return (id + k) % n;
    return -1;
  }
  function undo() { if (st.moves.length) { st.redo.push(st.moves.pop()); showError(''); refresh(); } }
  function redo() { if (st.redo.length) { st.moves.push(st.redo.pop()); showError(''); refresh(); } }

  async function playerMove() {
    if (game.over) { showError('the game is over'); return; }
    const text = posText(), my = seq;
    const q = new URLSearchParams({ pos: text, player: $('player').value.trim() });
    if ($('seed').value.trim()) q.set('seed', $('seed').value.trim());
    setBusy(true);
    try {
      const res = await fetch(API + 'play?' + q);
      const body = await res.json();
      if (!res.ok) { showError(body.error); setBusy(false); return; }
      if (my !== seq || posText() !== text) { setBusy(false); return; }   // the position changed meanwhile
      showError('');
      st.moves.push(body.move);
      st.redo = [];
      refresh();
    } catch (e) {
      showError('cannot reach dab serve: ' + e.message);
      setBusy(false);
    }
  }

  function load(text) {
    try {
      const s = parsePos(text);
      st = s;
      showError('');
      refresh();
      return true;
    } catch (e) {
      showError(e.message);
      return false;
    }
  }

  function init() {
    for (const id of ['rows', 'cols'])
      for (let i = 1; i <= MAX_SIDE; i++) {
        const o = document.createElement('option');
        o.value = o.textContent = i;
        $(id).appendChild(o);
      }
    $('undo').addEventListener('click', undo);
    $('redo').addEventListener('click', redo);
    $('sizeform').addEventListener('submit', (ev) => { ev.preventDefault(); load(`${$('rows').value}x${$('cols').value}`); });
    $('posform').addEventListener('submit', (ev) => { ev.preventDefault(); load($('pos').value); });
    $('playerform').addEventListener('submit', (ev) => { ev.preventDefault(); playerMove(); });
    $('copylink').addEventListener('click', () => {
      const url = location.href;
      if (navigator.clipboard) navigator.clipboard.writeText(url).catch(() => {});
      $('copylink').textContent = 'Link copied';
      setTimeout(() => { $('copylink').textContent = 'Copy link'; }, 1500);
    });
    document.addEventListener('keydown', (ev) => {
      const tag = (ev.target.tagName || '').toLowerCase();
      if (tag === 'input' || tag === 'select' || tag === 'textarea') return;
      if ((ev.key === 'z' && (ev.ctrlKey || ev.metaKey)) || (ev.key === 'u' && !ev.ctrlKey)) { ev.preventDefault(); undo(); }
      else if ((ev.key === 'y' && (ev.ctrlKey || ev.metaKey)) || (ev.key === 'r' && !ev.ctrlKey)) { ev.preventDefault(); redo(); }
      else if (ev.key === 'p' && !ev.ctrlKey) { ev.preventDefault(); playerMove(); }
    });
    const p = new URLSearchParams(location.search).get('pos');
    if (!p || !load(p)) { if (!p) load('3x3'); else { st = { rows: 3, cols: 3, base: null, moves: [], redo: [] }; const e = $('error').textContent; refresh(); showError(e); } }
  }
  // For tests and the console: the state and the last analysis.
  window.dabBoard = { state: () => ({ pos: posText(), moves: st.moves.slice(), analysis }), load };
  init();
})();
