// enoch web page: Play, Watch, Review. GPL-3.0-or-later.
// The page has no rules of its own: boards, legal targets and results come from the server's
// HTTP API (/openapi.json); live boards arrive on one server-sent-event stream per page.
import { Chessground } from './vendor/chessground/chessground.min.js';

const TOKEN = document.querySelector('meta[name=enoch-token]').content;
const main = document.getElementById('main');
// measurements the benchmark reads: seconds from the referee's move to this page's board
window.__enoch = { latencies: [], boards: 0 };

// ------------------------------------------------------------------ small helpers
function h(tag, attrs = {}, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined && kid !== false)
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  return el;
}
const SVG = 'http://www.w3.org/2000/svg';
function s(tag, attrs = {}) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}
async function api(path, options = {}) {
  const res = await fetch(path, options);
  const text = await res.text();
  let data = null;
  try { data = JSON.parse(text); } catch { data = text; }
  if (!res.ok) throw new Error((data && data.error) || `HTTP ${res.status}`);
  return data;
}
function post(path, body) {
  return api(path, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Enoch-Token': TOKEN }, body: JSON.stringify(body) });
}
function fmtClock(sec) {
  if (sec === null || sec === undefined) return '';
  sec = Math.max(0, sec);
  const m = Math.floor(sec / 60), s2 = sec - 60 * m;
  return sec < 10 ? `${m}:${s2.toFixed(1).padStart(4, '0')}` : `${m}:${String(Math.floor(s2)).padStart(2, '0')}`;
}
let variants = null;
async function getVariants() { if (!variants) variants = await api('/api/variants'); return variants; }
let enochianPieces = null;
async function getPieces() { if (!enochianPieces) enochianPieces = await api('/pieces/enochian.json'); return enochianPieces; }

// ------------------------------------------------------------------ the event stream
let stream = null;
let onEvent = () => {};
function listen(topics, handler) {
  if (stream) stream.close();
  onEvent = handler;
  const conn = document.getElementById('conn');
  stream = new EventSource('/api/events?topics=' + encodeURIComponent(topics.join(',')));
  stream.onopen = () => conn.classList.add('on');
  stream.onerror = () => conn.classList.remove('on');
  stream.onmessage = (e) => { try { onEvent(JSON.parse(e.data)); } catch (err) { console.error(err); } };
}
function closeStream() { if (stream) { stream.close(); stream = null; } }

// ------------------------------------------------------------------ boards
// A board shows a view from the server: chessground for chess, an SVG board for Enochian (four
// armies, two men on a shared throne). ``interactive`` seats get the legal targets of the view.
function promotionPicker(options, label, variant, colour) {
  return new Promise((resolve) => {
    const box = document.getElementById('promo');
    box.innerHTML = '';
    const choices = h('div', { class: 'choices' });
    for (const opt of options) {
      const b = h('button', { 'data-choice': label(opt), title: label(opt), onclick: () => { box.classList.add('hidden'); resolve(opt); } }, label(opt));
      if (variant === 'chess' && opt.promotion) {
        b.style.fontSize = '24px';
        b.textContent = { Q: '♕', R: '♖', B: '♗', N: '♘' }[opt.promotion] || opt.promotion;
      }
      choices.append(b);
    }
    choices.append(h('button', { 'data-choice': 'cancel', onclick: () => { box.classList.add('hidden'); resolve(null); } }, '✕'));
    box.append(choices);
    box.classList.remove('hidden');
  });
}

class ChessBoard {
  constructor(el, { orientation = 'white', onAnswer = null, viewOnly = false } = {}) {
    this.onAnswer = onAnswer;
    this.view = null;
    this.cg = Chessground(el, {
      orientation, viewOnly, coordinates: !viewOnly,
      animation: { enabled: true, duration: 100 },
      movable: { free: false, showDests: true, color: undefined, dests: new Map() },
      premovable: { enabled: false },
      draggable: { enabled: true, showGhost: true },
      highlight: { lastMove: true, check: true },
      events: { move: (o, d) => this.moved(o, d) },
    });
  }
  set(view, { seatColour = null } = {}) {
    this.view = view;
    if (!view || view.kind !== 'chess') return;
    const dests = new Map();
    const mine = seatColour && view.turn === seatColour;
    if (mine) for (const l of view.legal) if (l.from) { if (!dests.has(l.from)) dests.set(l.from, []); if (!dests.get(l.from).includes(l.to)) dests.get(l.from).push(l.to); }
    this.cg.set({
      fen: view.fen, turnColor: view.turn, lastMove: view.last || undefined, check: !!view.check,
      movable: { color: mine ? seatColour : undefined, dests },
    });
  }
  async moved(orig, dest) {
    const options = (this.view?.legal || []).filter((l) => l.from === orig && l.to === dest);
    let choice = options[0];
    if (options.length > 1) choice = await promotionPicker(options, (o) => o.promotion, 'chess');
    if (!choice || !this.onAnswer) { this.set(this.view, { seatColour: this.cg.state.movable.color }); return; }
    this.onAnswer({ from: choice.from, to: choice.to, promotion: choice.promotion ?? null });
  }
  destroy() { this.cg.destroy(); }
}

class EnochianBoard {
  constructor(el, { onAnswer = null, viewOnly = false } = {}) {
    this.el = el; this.onAnswer = onAnswer; this.viewOnly = viewOnly;
    this.selected = null; this.view = null; this.mine = false;
    el.classList.add('ebox');
    this.svg = s('svg', { viewBox: '0 0 400 400', role: 'img', 'aria-label': 'Enochian board' });
    el.append(this.svg);
    // drag: press on a man that may move, release on one of its targets (a press and release
    // on one square is a click, handled by click())
    this.dragFrom = null;
    this.onUp = (e) => {
      const from = this.dragFrom; this.dragFrom = null;
      if (!from || !this.mine) return;
      const at = document.elementFromPoint(e.clientX, e.clientY);
      const sq = at && at.getAttribute && at.getAttribute('data-click');
      if (!sq || sq === from) return;
      if (!this.view.legal.some((l) => l.from === from && l.to === sq)) return;
      this.selected = from;
      this.click(sq);
    };
    document.addEventListener('pointerup', this.onUp);
    getPieces().then(() => this.draw());
  }
  set(view, { mine = false } = {}) { this.view = view; this.mine = mine; if (!mine) this.selected = null; this.draw(); }
  xy(sq) { return [(sq.charCodeAt(0) - 97) * 50, (8 - Number(sq[1])) * 50]; }
  draw() {
    const v = this.view; const svg = this.svg;
    if (!v || v.kind !== 'enochian' || !enochianPieces) return;
    svg.textContent = '';
    const legal = this.mine ? v.legal.filter((l) => l.from) : [];
    const froms = new Set(legal.map((l) => l.from));
    const last = new Set(v.last || []);
    for (let f = 0; f < 8; f++) for (let r = 1; r <= 8; r++) {
      const sq = String.fromCharCode(97 + f) + r;
      const [x, y] = this.xy(sq);
      let cls = 'sq ' + ((f + r) % 2 ? 'light' : 'dark');
      if (last.has(sq)) cls += ' last';
      if (this.selected === sq) cls += ' sel';
      const rect = s('rect', { x, y, width: 50, height: 50, class: cls, 'data-square': sq });
      svg.append(rect);
      if (f === 0) { const t = s('text', { x: x + 2, y: y + 9, class: 'coord' }); t.textContent = r; svg.append(t); }
      if (r === 1) { const t = s('text', { x: x + 43, y: y + 48, class: 'coord' }); t.textContent = String.fromCharCode(97 + f); svg.append(t); }
    }
    for (const [army, sq] of Object.entries(v.thrones || {})) {
      const [x, y] = this.xy(sq);
      svg.append(s('rect', { x: x + 2, y: y + 2, width: 46, height: 46, class: 'throne', stroke: `var(--${army})`, 'data-throne': army }));
    }
    const bySquare = {};
    for (const m of v.men) (bySquare[m.square] = bySquare[m.square] || []).push(m);
    const frozen = new Set(v.frozen || []);
    for (const [sq, men] of Object.entries(bySquare)) {
      const [x, y] = this.xy(sq);
      men.forEach((m, i) => {
        const size = men.length > 1 && i > 0 ? 24 : 46;
        const px = men.length > 1 && i > 0 ? x + 26 : x + 2;
        const py = men.length > 1 && i > 0 ? y + 0 : y + 2;
        const img = s('image', { href: enochianPieces[m.army][m.kind], x: px, y: py, width: size, height: size,
          'data-square': sq, 'data-army': m.army, 'data-kind': m.kind, class: frozen.has(m.army) ? 'man frozen' : 'man' });
        svg.append(img);
      });
    }
    if (this.selected) {
      for (const l of legal.filter((l2) => l2.from === this.selected)) {
        const [x, y] = this.xy(l.to);
        svg.append(s('circle', { cx: x + 25, cy: y + 25, r: 9, class: 'dest', 'data-dest': l.to }));
      }
    }
    // one transparent layer of click targets on top
    for (let f = 0; f < 8; f++) for (let r = 1; r <= 8; r++) {
      const sq = String.fromCharCode(97 + f) + r;
      const [x, y] = this.xy(sq);
      const clickable = froms.has(sq) || (this.selected && legal.some((l) => l.from === this.selected && l.to === sq));
      const t = s('rect', { x, y, width: 50, height: 50, fill: 'transparent', 'data-click': sq, class: clickable ? 'clickable' : '' });
      t.addEventListener('click', () => this.click(sq));
      t.addEventListener('pointerdown', (e) => { if (this.mine && froms.has(sq)) { this.dragFrom = sq; e.preventDefault(); } });
      svg.append(t);
    }
  }
  async click(sq) {
    if (!this.mine || this.viewOnly) return;
    const legal = this.view.legal.filter((l) => l.from);
    if (this.selected) {
      const options = legal.filter((l) => l.from === this.selected && l.to === sq);
      if (options.length) {
        let choice = options[0];
        if (options.length > 1) choice = await promotionPicker(options, (o) => o.promotion || o.kind || '?', 'enochian');
        this.selected = null;
        if (choice && this.onAnswer) this.onAnswer(choice);
        this.draw();
        return;
      }
    }
    this.selected = legal.some((l) => l.from === sq) && this.selected !== sq ? sq : null;
    this.draw();
  }
  destroy() { document.removeEventListener('pointerup', this.onUp); this.el.textContent = ''; }
}

function makeBoard(el, variant, opts) {
  return variant === 'chess' ? new ChessBoard(el, opts) : new EnochianBoard(el, opts);
}

// ------------------------------------------------------------------ Play
async function playPage() {
  closeStream();
  const v = await getVariants();
  const form = h('form', { class: 'panel', id: 'play-form' });
  const variantSel = h('select', { name: 'variant', id: 'variant' }, v.games.map((g) => h('option', { value: g.name }, g.title)));
  const optionsBox = h('div', { id: 'options' });
  const seatsBox = h('div', { id: 'seats' });
  const err = h('div', { class: 'error', id: 'play-error' });
  const tc = h('input', { type: 'text', name: 'tc', id: 'tc', placeholder: 'e.g. 300+3 (none: untimed)' });
  const movetime = h('input', { type: 'number', name: 'movetime', id: 'movetime', step: 'any', min: '0', placeholder: 'seconds per agent move' });
  const fenBox = h('div');
  function game() { return v.games.find((g) => g.name === variantSel.value); }
  function seatCount() {
    const g = game();
    if (g.seats_option) { const el = optionsBox.querySelector(`[name="${g.seats_option}"]`); if (el && el.value) return Number(el.value); }
    return g.seats;
  }
  function agentChoices(g) {
    const list = ['human', ...g.builtins.map((b) => 'builtin:' + b)];
    return list;
  }
  function buildSeats() {
    const g = game(); const n = seatCount();
    seatsBox.textContent = '';
    for (let i = 0; i < n; i++) {
      // Enochian seats follow the array's turn order: seat 0 commands the army that moves first
      const name = g.name === 'chess' ? ['white', 'black'][i] : (n === 4 ? `seat ${i}` : `seat ${i} (team ${i === 0 ? 'actives' : 'passives'})`);
      const def = i === 0 ? 'human' : (g.builtins.includes('random') ? 'builtin:random' : 'builtin:' + g.builtins[0]);
      const input = h('input', { type: 'text', name: 'seat' + i, id: 'seat' + i, list: 'agents-' + g.name, value: def, size: 34 });
      seatsBox.append(h('label', {}, h('span', { class: 'name' }, name), input));
    }
    seatsBox.append(h('datalist', { id: 'agents-' + g.name }, agentChoices(g).map((a) => h('option', { value: a }))));
    if (!v.allow_commands) seatsBox.append(h('p', { class: 'muted' }, 'Agents that run programs (exec:, jsonl:, uci:, http://) need the server started with --allow-commands.'));
  }
  function buildOptions() {
    const g = game();
    optionsBox.textContent = '';
    for (const [name, sch] of Object.entries(g.options.properties)) {
      const types = [].concat(sch.type);
      let input;
      if (sch.enum) {
        input = h('select', { name, 'data-option': name }, sch.enum.map((e) => h('option', { value: e === null ? '' : String(e), selected: e === sch.default }, e === null ? '(none)' : String(e))));
      } else if (types.includes('boolean')) {
        input = h('input', { type: 'checkbox', name, 'data-option': name, checked: sch.default === true });
      } else if (types.includes('integer') || types.includes('number')) {
        input = h('input', { type: 'number', name, 'data-option': name, step: types.includes('integer') ? '1' : 'any', value: sch.default ?? '', min: sch.minimum, max: sch.maximum });
      } else {
        input = h('input', { type: 'text', name, 'data-option': name, value: sch.default ?? '', size: 50 });
      }
      input.addEventListener('change', () => { if (name === g.seats_option) buildSeats(); });
      optionsBox.append(h('label', { title: sch.description || '' }, h('span', { class: 'name' }, name), input, ' ', h('span', { class: 'muted' }, (sch.description || '').slice(0, 90))));
    }
    buildSeats();
  }
  variantSel.addEventListener('change', buildOptions);
  form.append(h('h2', {}, 'Play a game'),
    h('label', {}, h('span', { class: 'name' }, 'game'), variantSel),
    h('h3', {}, 'Options'), optionsBox, fenBox,
    h('h3', {}, 'Seats'), seatsBox,
    h('h3', {}, 'Time'),
    h('label', {}, h('span', { class: 'name' }, 'clocks'), tc),
    h('label', {}, h('span', { class: 'name' }, 'agent move time'), movetime),
    h('p', {}, h('button', { type: 'submit', class: 'primary', id: 'start' }, 'Start')), err);
  form.addEventListener('submit', async (e) => {
    e.preventDefault(); err.textContent = '';
    const g = game();
    const options = {};
    for (const el of optionsBox.querySelectorAll('[data-option]')) {
      const sch = g.options.properties[el.name];
      if (el.type === 'checkbox') { if (el.checked !== (sch.default === true)) options[el.name] = el.checked; continue; }
      if (el.value === '' || el.value === String(sch.default ?? '')) continue;
      const types = [].concat(sch.type);
      options[el.name] = types.includes('integer') ? Number.parseInt(el.value, 10) : types.includes('number') ? Number(el.value) : el.value;
    }
    const seats = [...seatsBox.querySelectorAll('input')].map((i) => i.value.trim());
    const body = { variant: g.name, options, seats };
    if (tc.value.trim()) body.tc = tc.value.trim();
    if (movetime.value) body.movetime = Number(movetime.value);
    try {
      const game2 = await post('/api/games', body);
      location.hash = '#/game/' + game2.id;
    } catch (ex) { err.textContent = ex.message; }
  });
  main.textContent = '';
  main.append(form);
  buildOptions();
}

// ------------------------------------------------------------------ a game (play and watch)
function seatLabel(feed, i) {
  if (feed.variant === 'chess') return ['White', 'Black'][i];
  const v = feed.view;
  if (v && v.controllers) {
    const armies = Object.entries(v.controllers).filter(([, seat]) => seat === i).map(([a]) => a);
    return armies.join(' + ');
  }
  return 'seat ' + i;
}
function clockValues(clock) {
  if (!clock || !clock.clock) return null;
  const c = clock.clock;
  if ('white' in c) return [c.white, c.black];
  return c.remaining || null;
}

function resultText(r) {
  if (!r) return '';
  return `${r.result ?? '*'} — ${r.termination ?? ''}${r.reason ? ': ' + r.reason : ''}`;
}

function entryRows(feed, entries) {
  return entries.map((e) => {
    const decisions = (e.decisions || []).map((d) => {
      const cls = d.decision === 'retry' ? 'retry' : (d.decision === 'move' ? '' : 'refused');
      return h('div', { class: cls }, d.decision + (d.action ? ' ' + d.action : '') + (d.reason ? ': ' + d.reason : ''));
    });
    const tokens = e.usage ? JSON.stringify(e.usage) : (e.tokens ?? ((e.prompt_tokens ?? '') + (e.completion_tokens ? '/' + e.completion_tokens : '')));
    return h('tr', {}, h('td', {}, e.ply), h('td', {}, feed.seats[e.seat] ?? e.seat),
      h('td', { class: 'raw' }, e.error ? h('span', { class: 'refused' }, `${e.kind || 'error'}: ${e.error}`) : (e.raw ?? '')),
      h('td', {}, e.elapsed !== undefined && e.elapsed !== null ? Number(e.elapsed).toFixed(3) + ' s' : ''),
      h('td', {}, tokens || ''), h('td', {}, decisions));
  });
}

function usageTable(feed) {
  const usage = feed.result && feed.result.usage;
  if (!Array.isArray(usage)) return null;
  const keys = ['requests', 'retries', 'illegal', 'invalid', 'prompt_tokens', 'completion_tokens', 'seconds', 'cost'];
  return h('table', { class: 'cross', id: 'usage' }, h('tr', {}, h('th', {}, 'seat'), keys.map((k) => h('th', {}, k))),
    usage.map((u, i) => h('tr', {}, h('td', {}, feed.seats[i]), keys.map((k) => h('td', {}, u && u[k] !== null && u[k] !== undefined ? String(u[k]) : '—')))));
}

async function gamePage(id) {
  let feed = await api('/api/games/' + encodeURIComponent(id));
  const boardEl = h('div', { id: 'board' });
  const boardBox = h('div', { class: 'boardbox' }, boardEl);
  const seatsEl = h('div', { class: 'seats', id: 'seat-list' });
  const status = h('div', { class: 'status', id: 'status' });
  const actions = h('div', { class: 'actions', id: 'actions' });
  const extra = h('div', { id: 'extra' });
  const moves = h('div', { class: 'moves', id: 'moves' });
  const tbody = h('tbody');
  const entries = h('div', { class: 'entries' }, h('table', { id: 'entries' }, h('thead', {}, h('tr', {}, ['ply', 'agent', 'answer', 'time', 'tokens', 'decision'].map((t) => h('th', {}, t)))), tbody));
  const err = h('div', { class: 'error', id: 'game-error' });
  const links = h('p', {}, h('a', { href: '#/review/' + id, id: 'review-link' }, 'review'), ' · ', h('a', { href: '/api/games/' + id + '/record', download: '' }, 'download record'));
  main.textContent = '';
  main.append(h('div', { class: 'game' }, boardBox, h('div', { class: 'side' }, h('h2', {}, `${feed.variant} · ${feed.seats.join(' vs ')}`), seatsEl, status, actions, err, extra, h('h3', {}, 'Moves'), moves, h('h3', {}, 'Answers'), entries, links)));
  const humans = feed.humans || [];
  const orientation = feed.variant === 'chess' && humans.length && humans[0] === 1 ? 'black' : 'white';
  async function send(answer) {
    err.textContent = '';
    try { await post(`/api/games/${encodeURIComponent(id)}/answer`, { seat: feed.waiting, answer }); }
    catch (ex) { err.textContent = ex.message; render(); }
  }
  const board = makeBoard(boardEl, feed.variant, { orientation, onAnswer: send });
  let entryList = feed.entries || [];
  let clockAt = performance.now();
  let moveList = feed.moves || [];
  function render() {
    const v = feed.view;
    const waitingHuman = feed.waiting !== null && feed.waiting !== undefined && humans.includes(feed.waiting) && feed.status !== 'finished';
    if (v) {
      if (feed.variant === 'chess') board.set(v, { seatColour: waitingHuman ? ['white', 'black'][feed.waiting] : null });
      else board.set(v, { mine: waitingHuman });
    }
    // seats and clocks
    seatsEl.textContent = '';
    const clocks = clockValues(feed.clock);
    feed.seats.forEach((name, i) => {
      let remaining = clocks ? clocks[i] : null;
      if (remaining !== null && remaining !== undefined && feed.status !== 'finished' && feed.clock.seat === i) remaining -= (performance.now() - clockAt) / 1000;
      const teams = feed.summary && feed.summary.teams;
      const label = seatLabel(feed, i) + (teams ? ` · ${teams[i]}` : '');
      const armies = feed.variant === 'enochian' && v && v.controllers ? Object.entries(v.controllers).filter(([, seat]) => seat === i).map(([a]) => a) : [];
      seatsEl.append(h('div', { class: 'seat' + (feed.to_move === i && feed.status !== 'finished' ? ' tomove' : ''), 'data-seat': i },
        h('span', {}, armies.map((a) => h('span', { class: 'army-dot', style: `background: var(--${a})`, title: a })),
          h('b', {}, label), ' ', name, humans.includes(i) ? ' (you)' : '',
          armies.filter((a) => v.frozen.includes(a)).map((a) => h('span', { class: 'frozen-tag', 'data-frozen': a }, a + ' frozen'))),
        h('span', { class: 'clock' + (remaining !== null && remaining < 10 ? ' low' : ''), 'data-clock': i }, remaining !== null && remaining !== undefined ? fmtClock(remaining) : '')));
    });
    // status
    if (feed.status === 'finished') status.innerHTML = '', status.append(h('div', { class: 'result', id: 'result' }, resultText(feed.result)));
    else status.textContent = waitingHuman ? `Your move (${seatLabel(feed, feed.waiting)})` : (feed.to_move !== null && feed.to_move !== undefined ? `${feed.seats[feed.to_move]} to move…` : 'starting…');
    // actions
    actions.textContent = '';
    if (waitingHuman && v) {
      for (const l of v.legal.filter((x) => x.action)) {
        const label = { offer_draw: 'Offer draw', claim_draw: 'Claim draw (' + (l.reason || '').replace(/_/g, ' ') + ')', resign: 'Resign', offer_exchange: 'Offer exchange', accept_exchange: 'Accept exchange', refuse_exchange: 'Refuse exchange', withdraw: 'Withdraw' }[l.action] || l.action;
        actions.append(h('button', { 'data-action': l.action, onclick: () => { if (l.action !== 'resign' || confirm('Resign this game?')) send(l); } }, label));
      }
    }
    if (v && v.draw_offer) actions.append(h('span', { class: 'muted', id: 'draw-offer' }, ` ${v.draw_offer} offers a draw (answer with a draw offer to accept)`));
    // Enochian: the die, the verdict, exchanges
    extra.textContent = '';
    if (v && v.kind === 'enochian') {
      if (v.divination) extra.append(h('div', { class: 'die', id: 'die' }, `die: ${v.divination.die ?? '—'} · querent ${v.divination.querent} · verdict: ${v.divination.verdict ?? 'pending'}`));
      extra.append(h('div', { class: 'muted' }, `to act: ${v.to_act}` + (v.frozen.length ? ` · frozen: ${v.frozen.join(', ')}` : '') + (v.exchange_offer ? ` · exchange offered by ${v.exchange_offer.from} to ${v.exchange_offer.to}` : '')));
    }
    const u = usageTable(feed);
    if (u) extra.append(u);
    moves.textContent = '';
    moveList.forEach((m, i) => moves.append(h('span', { onclick: () => { location.hash = `#/review/${id}/${i + 1}`; } }, (feed.variant === 'chess' && i % 2 === 0 ? (i / 2 + 1) + '. ' : '') + m)));
    moves.scrollTop = moves.scrollHeight;
  }
  function renderEntries(list) { for (const row of entryRows(feed, list)) tbody.append(row); entries.scrollTop = entries.scrollHeight; }
  renderEntries(entryList);
  render();
  const ticker = setInterval(() => { if (!document.body.contains(seatsEl)) { clearInterval(ticker); return; } if (feed.clock && feed.status !== 'finished') render(); }, 500);
  listen(['game:' + id], async (msg) => {
    if (msg.type !== 'game' || msg.id !== id) return;
    if (msg.entries_from !== entryList.length) {
      const full = await api('/api/games/' + encodeURIComponent(id));
      Object.assign(feed, full); entryList = full.entries; moveList = full.moves; tbody.textContent = ''; renderEntries(entryList);
    } else {
      entryList = entryList.concat(msg.entries); renderEntries(msg.entries);
      const { moves: _n, entries: _e, ...rest } = msg;
      Object.assign(feed, rest);
      if (msg.moves > moveList.length && msg.last_move) moveList = moveList.concat([msg.last_move]);
      if (msg.moves !== moveList.length) { const full = await api('/api/games/' + encodeURIComponent(id)); moveList = full.moves; }
    }
    clockAt = performance.now();
    render();
    if (msg.moved_at) { window.__enoch.latencies.push(Date.now() / 1000 - msg.moved_at); window.__enoch.boards++; }
  });
}

// ------------------------------------------------------------------ Watch
async function watchPage() {
  const v = await getVariants();
  const list = h('div', { class: 'list', id: 'live-games' });
  const matches = h('div', { class: 'list', id: 'match-list' });
  const err = h('div', { class: 'error', id: 'match-error' });
  const form = h('form', { class: 'panel', id: 'match-form' },
    h('h2', {}, 'Start a match'),
    h('label', {}, h('span', { class: 'name' }, 'game'), h('select', { name: 'variant' }, v.games.map((g) => h('option', { value: g.name }, g.title)))),
    h('label', {}, h('span', { class: 'name' }, 'agents (one a line)'), h('textarea', { name: 'agents', rows: 3 }, 'builtin:engine?movetime=0.05\nbuiltin:greedy')),
    h('label', {}, h('span', { class: 'name' }, 'kind'), h('select', { name: 'kind' }, h('option', { value: 'match' }, 'match'), h('option', { value: 'tournament' }, 'tournament'))),
    h('label', {}, h('span', { class: 'name' }, 'games'), h('input', { type: 'number', name: 'games', value: 4, min: 1 })),
    h('label', {}, h('span', { class: 'name' }, 'games at once'), h('input', { type: 'number', name: 'concurrency', value: 1, min: 1 })),
    h('label', {}, h('span', { class: 'name' }, 'agent move time (s)'), h('input', { type: 'number', name: 'movetime', step: 'any', min: 0 })),
    h('label', {}, h('span', { class: 'name' }, 'SPRT'), h('input', { type: 'text', name: 'sprt', placeholder: 'elo0=0,elo1=10 (optional)' })),
    h('button', { type: 'submit', class: 'primary', id: 'start-match' }, 'Start match'), err);
  form.addEventListener('submit', async (e) => {
    e.preventDefault(); err.textContent = '';
    const f = new FormData(form);
    const body = { variant: f.get('variant'), kind: f.get('kind'), agents: f.get('agents').split('\n').map((x) => x.trim()).filter(Boolean), games: Number(f.get('games')), concurrency: Number(f.get('concurrency')) };
    if (f.get('movetime')) body.movetime = Number(f.get('movetime'));
    if (f.get('sprt')) body.sprt = f.get('sprt');
    try { const m = await post('/api/matches', body); location.hash = '#/match/' + m.id; } catch (ex) { err.textContent = ex.message; }
  });
  main.textContent = '';
  main.append(h('div', { class: 'game' }, h('div', { class: 'side' }, h('h2', {}, 'Running games'), list, h('h2', {}, 'Matches'), matches), h('div', { class: 'side' }, form)));
  async function refresh() {
    const games = (await api('/api/games')).games.filter((g) => g.status !== 'finished' && !g.match);
    list.textContent = '';
    if (!games.length) list.append(h('p', { class: 'muted' }, 'No game running.'));
    for (const g of games) list.append(h('a', { href: '#/game/' + g.id, 'data-game': g.id }, `${g.variant}: ${g.seats.join(' vs ')} · ply ${g.plies}`));
    const ms = (await api('/api/matches')).matches;
    matches.textContent = '';
    if (!ms.length) matches.append(h('p', { class: 'muted' }, 'No match.'));
    for (const m of ms) matches.append(h('a', { href: '#/match/' + m.id, 'data-match': m.id }, `${m.kind} ${m.id}: ${m.names.join(', ')} · ${m.finished}/${m.planned ?? '?'} games · ${m.status}`));
  }
  await refresh();
  let pending = false;
  listen(['games'], () => { if (pending) return; pending = true; setTimeout(() => { pending = false; if (document.body.contains(list)) refresh(); }, 700); });
}

function sprtBar(sc) {
  const t = sc.sprt;
  const span = t.upper - t.lower;
  const frac = Math.max(0, Math.min(1, (t.llr - t.lower) / span));
  const zero = (-t.lower) / span;
  const fill = h('div', { class: 'fill' + (t.llr < 0 ? ' neg' : '') });
  fill.style.left = (Math.min(frac, zero) * 100) + '%';
  fill.style.width = (Math.abs(frac - zero) * 100) + '%';
  const z = h('div', { class: 'zero' }); z.style.left = (zero * 100) + '%';
  return h('div', {}, h('div', { class: 'sprt', id: 'sprt', title: `LLR ${t.llr} in [${t.lower}, ${t.upper}]` }, fill, z),
    h('div', { class: 'muted' }, `SPRT elo0=${t.elo0} elo1=${t.elo1}: LLR ${t.llr} (${t.lower} … ${t.upper})${t.given ? '' : ' — no SPRT was asked for; default bounds shown'}`));
}

async function matchPage(id) {
  let m = await api('/api/matches/' + encodeURIComponent(id));
  const stats = h('div', { id: 'match-stats', class: 'panel' });
  const grid = h('div', { class: 'grid', id: 'match-grid' });
  main.textContent = '';
  main.append(h('h2', {}, `${m.kind} ${m.id} (${m.variant})`), stats, h('h3', {}, 'Boards'), grid);
  const boards = {};
  function renderStats() {
    stats.textContent = '';
    stats.append(h('div', { id: 'match-status' }, `${m.finished} of ${m.planned ?? '?'} games finished · ${m.status}` + (m.stopped_by_sprt ? ` · SPRT accepted ${m.stopped_by_sprt}` : '') + (m.error ? ` · error: ${m.error}` : '')));
    if (m.score) {
      const sc = m.score;
      const elo = sc.elo === null ? '—' : sc.elo.toFixed(1);
      const margin = sc.elo_low === null || sc.elo_high === null ? '∞' : ((sc.elo_high - sc.elo_low) / 2).toFixed(1);
      stats.append(h('div', { id: 'wdl' }, h('b', {}, `${m.names[0]} vs ${m.names[1]}: `), `W ${sc.wins} D ${sc.draws} L ${sc.losses} · Elo ${elo} ± ${margin} · LOS ${(sc.los * 100).toFixed(1)}%`), sprtBar(sc));
    }
    const names = m.names;
    if (names.length) {
      stats.append(h('table', { class: 'cross', id: 'crosstable' }, h('tr', {}, h('th', {}, ''), names.map((n) => h('th', {}, n)), h('th', {}, 'rating')),
        names.map((n, i) => h('tr', {}, h('th', {}, n), names.map((_, j) => h('td', {}, i === j ? '·' : m.crosstable[i][j].join('/'))),
          h('td', {}, m.ratings[n] && m.ratings[n].elo !== null ? `${m.ratings[n].elo.toFixed(0)} ± ${m.ratings[n].margin === null ? '∞' : m.ratings[n].margin.toFixed(0)}` : '—')))));
    }
  }
  function renderGrid() {
    const shown = m.games.filter((g) => g.status !== 'finished').concat(m.games.filter((g) => g.status === 'finished').slice(-4));
    const keep = new Set(shown.map((g) => g.id));
    for (const gid of Object.keys(boards)) if (!keep.has(gid)) { boards[gid].box.remove(); boards[gid].board.destroy(); delete boards[gid]; }
    for (const g of shown) {
      if (!boards[g.id]) {
        const el = h('div');
        const caption = h('div', {});
        const box = h('div', { class: 'mini', 'data-game': g.id }, h('a', { href: '#/game/' + g.id }, el), caption);
        grid.append(box);
        boards[g.id] = { box, caption, board: makeBoard(el, g.variant, { viewOnly: true }) };
        api('/api/games/' + encodeURIComponent(g.id)).then((full) => { if (full.view && boards[g.id]) boards[g.id].board.set(full.view); });
      }
      boards[g.id].caption.textContent = `${g.seats.join(' vs ')} · ply ${g.plies}` + (g.result ? ` · ${g.result.result}` : '');
    }
  }
  renderStats(); renderGrid();
  listen(['match:' + id], (msg) => {
    if (msg.type === 'match') { m = msg; renderStats(); renderGrid(); return; }
    if (msg.type === 'game' && boards[msg.id]) {
      if (msg.view) boards[msg.id].board.set(msg.view);
      boards[msg.id].caption.textContent = `${msg.seats.join(' vs ')} · ply ${msg.plies}` + (msg.result ? ` · ${msg.result.result}` : '');
      if (msg.moved_at) { window.__enoch.latencies.push(Date.now() / 1000 - msg.moved_at); window.__enoch.boards++; }
    }
  });
}

// ------------------------------------------------------------------ Review
async function reviewList() {
  closeStream();
  const games = (await api('/api/games')).games.filter((g) => g.status === 'finished');
  const list = h('div', { class: 'list', id: 'finished-games' });
  for (const g of games.reverse()) list.append(h('a', { href: '#/review/' + g.id, 'data-game': g.id }, `${g.variant}: ${g.seats.join(' vs ')} · ${g.result ? g.result.result + ' ' + (g.result.termination || '') : ''} · ${g.plies} plies · ${g.source}`));
  if (!games.length) list.append(h('p', { class: 'muted' }, 'No finished game yet.'));
  const err = h('div', { class: 'error', id: 'import-error' });
  const file = h('input', { type: 'file', id: 'import-file', accept: '.pgn,.jsonl,.json,.txt' });
  const text = h('textarea', { id: 'import-text', placeholder: 'or paste PGN / results lines here' });
  const fmt = h('select', { id: 'import-format' }, h('option', { value: 'pgn' }, 'PGN'), h('option', { value: 'results' }, 'results (JSONL)'));
  const form = h('form', { class: 'panel', id: 'import-form' }, h('h2', {}, 'Open games from a file'), file, fmt, text, h('button', { type: 'submit', class: 'primary' }, 'Open'), err);
  form.addEventListener('submit', async (e) => {
    e.preventDefault(); err.textContent = '';
    let content = text.value;
    if (file.files.length) { content = await file.files[0].text(); if (/\.jsonl?$/.test(file.files[0].name)) fmt.value = 'results'; }
    try { const out = await post('/api/import', { format: fmt.value, text: content }); location.hash = '#/review/' + out.games[0].id; } catch (ex) { err.textContent = ex.message; }
  });
  main.textContent = '';
  main.append(h('div', { class: 'game' }, h('div', { class: 'side' }, h('h2', {}, 'Finished games'), list), h('div', { class: 'side' }, form)));
}

function evalGraph(evals, current, onPick) {
  const n = evals.length;
  const svg = s('svg', { class: 'evalgraph', id: 'evalgraph', viewBox: `0 0 ${Math.max(n - 1, 1)} 200`, preserveAspectRatio: 'none' });
  const clip = (cp) => 100 - Math.max(-1000, Math.min(1000, cp)) / 10;
  let d = '';
  evals.forEach((e, i) => { if (e !== null) d += (d ? 'L' : 'M') + i + ' ' + clip(e); });
  svg.append(s('line', { x1: 0, x2: n, y1: 100, y2: 100, stroke: '#aaa', 'stroke-width': 1, 'vector-effect': 'non-scaling-stroke' }));
  svg.append(s('path', { d, fill: 'none', stroke: '#7a5c2e', 'stroke-width': 2, 'vector-effect': 'non-scaling-stroke' }));
  svg.append(s('line', { x1: current, x2: current, y1: 0, y2: 200, stroke: '#c33', 'stroke-width': 1, 'vector-effect': 'non-scaling-stroke' }));
  svg.addEventListener('click', (e) => { const r = svg.getBoundingClientRect(); onPick(Math.round((e.clientX - r.left) / r.width * (n - 1))); });
  return svg;
}

async function reviewPage(id, startPly) {
  closeStream();
  const feed = await api('/api/games/' + encodeURIComponent(id));
  const positions = (await api(`/api/games/${encodeURIComponent(id)}/positions`)).positions;
  const offset = positions.length - 1 - feed.moves.length; // positions before the first known move
  const boardEl = h('div');
  const moves = h('div', { class: 'moves', id: 'review-moves' });
  const info = h('div', { id: 'review-ply', class: 'status' });
  const graphBox = h('div');
  main.textContent = '';
  main.append(h('div', { class: 'game' }, h('div', { class: 'boardbox' }, boardEl),
    h('div', { class: 'side' }, h('h2', {}, `${feed.variant} · ${feed.seats.join(' vs ')}`), h('div', { class: 'result' }, resultText(feed.result)), info,
      h('div', { class: 'actions' }, h('button', { id: 'first', onclick: () => go(0) }, '⏮'), h('button', { id: 'prev', onclick: () => go(ply - 1) }, '◀'), h('button', { id: 'next', onclick: () => go(ply + 1) }, '▶'), h('button', { id: 'last', onclick: () => go(positions.length - 1) }, '⏭'),
        ' ', h('a', { href: `/api/games/${id}/record`, download: '', id: 'download' }, feed.variant === 'chess' ? 'download PGN' : 'download record')),
      graphBox, h('h3', {}, 'Moves'), moves, h('p', { class: 'muted' }, 'Keys: ← → step, Home/End. The address links to this game and ply.'))));
  const board = makeBoard(boardEl, feed.variant, { viewOnly: true });
  let ply = 0;
  function go(p) {
    ply = Math.max(0, Math.min(positions.length - 1, p));
    let k = ply;
    while (k > 0 && !positions[k]) k--;
    if (positions[k]) board.set(positions[k]);
    info.textContent = `ply ${ply} of ${positions.length - 1}` + (feed.evals && feed.evals[ply] !== null && feed.evals[ply] !== undefined ? ` · eval ${(feed.evals[ply] / 100).toFixed(2)}` : '');
    moves.textContent = '';
    feed.moves.forEach((m, i) => {
      const at = i + 1 + offset;
      moves.append(h('span', { class: at === ply ? 'current' : '', 'data-ply': at, onclick: () => go(at) }, (feed.variant === 'chess' && i % 2 === 0 ? (i / 2 + 1) + '. ' : '') + m));
    });
    graphBox.textContent = '';
    if (feed.evals) graphBox.append(evalGraph(feed.evals, ply, go));
    history.replaceState(null, '', `#/review/${id}/${ply}`);
  }
  go(startPly === undefined ? positions.length - 1 : startPly);
  const keys = (e) => {
    if (!document.body.contains(boardEl)) { document.removeEventListener('keydown', keys); return; }
    if (e.key === 'ArrowLeft') go(ply - 1); else if (e.key === 'ArrowRight') go(ply + 1);
    else if (e.key === 'Home') go(0); else if (e.key === 'End') go(positions.length - 1);
  };
  document.addEventListener('keydown', keys);
}

// ------------------------------------------------------------------ routing
async function route() {
  const parts = location.hash.replace(/^#\/?/, '').split('/');
  for (const a of document.querySelectorAll('[data-nav]')) a.classList.toggle('active', a.dataset.nav === ({ game: 'play', match: 'watch' }[parts[0]] || parts[0] || 'play'));
  try {
    if (parts[0] === 'game' && parts[1]) await gamePage(parts[1]);
    else if (parts[0] === 'watch') await watchPage();
    else if (parts[0] === 'match' && parts[1]) await matchPage(parts[1]);
    else if (parts[0] === 'review' && parts[1]) await reviewPage(parts[1], parts[2] === undefined ? undefined : Number(parts[2]));
    else if (parts[0] === 'review') await reviewList();
    else await playPage();
  } catch (ex) {
    main.textContent = '';
    main.append(h('p', { class: 'error', id: 'page-error' }, ex.message));
  }
}
// (the review page writes its ply into the address with replaceState: no hashchange, no reload)
window.addEventListener('hashchange', route);
route();
