// GET /mock/ui: the inspector page. Plain server-rendered HTML and one small script that calls the QA API:
// sessions, back-channel sign-ins waiting for a user (CIBA, device codes), clock, faults, keys, the request
// journal (live) and a token decoder. The page itself is static and holds no data; with a QA token set, its calls carry the token the tester types.
import type { RequestHandler } from 'express';
import { escapeHtml, securityHeaders } from '../http/pages.js';
import { FAULT_ENDPOINTS } from './fault-spec.js';

const STYLE = `*{box-sizing:border-box}body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f4f6f9;color:#1d2330}
header{background:#1d2330;color:#fff;padding:.7rem 1.2rem;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
header h1{font-size:1.1rem;margin:0}header .realm{font-family:ui-monospace,monospace;opacity:.8}
#auth{margin-left:auto;display:flex;gap:.4rem}#auth[hidden]{display:none}
main{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(22rem,100%),1fr));gap:1rem;padding:1rem}
section{background:#fff;border:1px solid #d6dce6;border-radius:8px;padding:.8rem 1rem;min-width:0}
section.wide{grid-column:1/-1}h2{font-size:1rem;margin:0 0 .6rem}
table{border-collapse:collapse;width:100%;font-size:.85rem}th,td{text-align:left;padding:.25rem .4rem;border-bottom:1px solid #eef1f5;vertical-align:top}
th{color:#5b6475;font-weight:600}td.mono,.mono{font-family:ui-monospace,monospace;overflow-wrap:anywhere}td.nowrap,th{white-space:nowrap}
button{font:inherit;padding:.25rem .7rem;border:1px solid #b9c3d3;border-radius:6px;background:#eef1f5;cursor:pointer}button:hover{background:#e1e6ee}
input,select,textarea{font:inherit;padding:.25rem .4rem;border:1px solid #b9c3d3;border-radius:6px}
textarea{width:100%;min-height:5rem;font-family:ui-monospace,monospace;font-size:.8rem}
form.row{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center;margin:.4rem 0}
.muted{color:#5b6475}.ok{color:#0a7a32;font-weight:600}.bad{color:#b00020;font-weight:600}
.s2{color:#0a7a32}.s3{color:#2f6fdf}.s4{color:#b36b00}.s5{color:#b00020}
pre{background:#f7f8fa;border:1px solid #eef1f5;border-radius:6px;padding:.5rem;overflow:auto;font-size:.8rem;max-height:22rem;white-space:pre-wrap;overflow-wrap:anywhere;margin:0}
.decoded{display:grid;grid-template-columns:1fr 2fr;gap:.6rem}.section-error{color:#b00020;margin:.4rem 0}.section-error:empty{display:none}
@media (max-width:40rem){main{grid-template-columns:1fr;padding:.6rem}.decoded{grid-template-columns:1fr}}
#error{color:#b00020;margin:0 1rem}#journal-wrap,#sessions-wrap,#waiting-wrap{max-height:26rem;overflow:auto}
td.binding{font-weight:600}`;

/** The page's script: everything it shows is set with textContent, never parsed as HTML. */
const SCRIPT = `(() => {
  const base = location.pathname.replace(/\\/mock\\/ui\\/?$/, '');
  const $ = (id) => document.getElementById(id);
  const key = 'mock-idp-qa-token:' + base;
  let token = sessionStorage.getItem(key) || '';
  const showError = (text) => { $('error').textContent = text || ''; };
  async function api(method, path, body) {
    const headers = { accept: 'application/json' };
    if (token) headers.authorization = 'Bearer ' + token;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(base + '/mock' + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const data = await res.json().catch(() => ({}));
    if (res.status === 401) { $('auth').hidden = false; throw new Error('The QA API needs the QA token: type it above.'); }
    if (!res.ok) throw new Error(data.error_description || data.error || ('HTTP ' + res.status));
    return data;
  }
  // An action's error shows in its own section (beside the form that caused it), the rest at the top.
  const run = (fn) => async (event) => {
    if (event) event.preventDefault();
    const section = event && event.target.closest ? event.target.closest('section') : null;
    const where = section ? section.querySelector('.section-error') : null;
    const say = (text) => { if (where) where.textContent = text; else showError(text); };
    try { say(''); showError(''); await fn(event); await refresh(); } catch (e) { say(e.message); }
  };
  function cell(row, text, cls) {
    const td = document.createElement('td');
    td.textContent = text === null || text === undefined ? '' : String(text);
    if (cls) td.className = cls;
    row.appendChild(td);
    return td;
  }
  const time = (epoch) => new Date(epoch * 1000).toISOString().replace('.000Z', 'Z');
  // Sessions come in pages (GET /mock/sessions?limit=&cursor=), so a realm with 100,000 of them stays usable:
  // the page shows the first ones (id order), and "Show more" adds a page.
  const PAGE = 200;
  let shown = PAGE;
  async function loadSessions() {
    const sessions = [];
    let cursor = null;
    do {
      const limit = Math.min(1000, shown - sessions.length);
      const page = await api('GET', '/sessions?limit=' + limit + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''));
      sessions.push(...page.sessions);
      cursor = page.nextCursor;
    } while (cursor && sessions.length < shown);
    const body = $('sessions'); body.replaceChildren();
    for (const s of sessions) {
      const tr = document.createElement('tr');
      cell(tr, s.id, 'mono nowrap'); cell(tr, s.username || '(service account)'); cell(tr, (s.clients || [s.clientId]).join(', '));
      cell(tr, time(s.authTime), 'nowrap'); cell(tr, time(s.expiresAt), 'nowrap');
      const end = document.createElement('button'); end.textContent = 'End'; end.dataset.session = s.id;
      end.addEventListener('click', run(() => api('DELETE', '/sessions/' + encodeURIComponent(s.id))));
      cell(tr, '').appendChild(end);
      body.appendChild(tr);
    }
    $('sessions-count').textContent = String(sessions.length) + (cursor ? '+' : '');
    $('sessions-more').hidden = !cursor;
  }
  async function loadClock() {
    const c = await api('GET', '/clock');
    $('clock-now').textContent = c.now; $('clock-frozen').textContent = c.frozen ? 'frozen' : 'running';
  }
  async function loadFaults() {
    const { faults } = await api('GET', '/faults');
    const body = $('faults'); body.replaceChildren();
    for (const f of faults) {
      const tr = document.createElement('tr');
      cell(tr, f.endpoint); cell(tr, f.status); cell(tr, f.error); cell(tr, f.delayMs); cell(tr, f.remaining);
      body.appendChild(tr);
    }
  }
  async function loadKeys() {
    const k = await api('GET', '/keys');
    const list = $('keys'); list.replaceChildren();
    for (const kid of k.keys) {
      const li = document.createElement('li'); li.className = 'mono';
      li.textContent = kid + (kid === k.kid ? '  (signing)' : '');
      list.appendChild(li);
    }
  }
  async function loadJournal() {
    const { requests, held } = await api('GET', '/requests?limit=200');
    const body = $('journal'); body.replaceChildren();
    for (const r of requests.reverse()) {
      const tr = document.createElement('tr');
      // The mock clock's date may be any day: the time alone would mislead.
      cell(tr, r.time.slice(0, 10) + ' ' + r.time.slice(11, 23), 'mono nowrap'); cell(tr, r.method); cell(tr, r.endpoint || r.path, 'mono nowrap');
      cell(tr, r.status, 's' + String(r.status)[0]); cell(tr, r.client); cell(tr, r.grant); cell(tr, r.user); cell(tr, r.error);
      cell(tr, r.durationMs);
      body.appendChild(tr);
    }
    $('journal-count').textContent = String(held);
  }
  // Pending back-channel sign-ins: CIBA requests (with their binding_message) and device codes, each with
  // the user's decision as buttons (a device code asks which user approves).
  let waitingShape = '';
  async function loadWaiting() {
    const [ciba, device] = await Promise.all([api('GET', '/ciba'), api('GET', '/device')]);
    const waiting = [...ciba.requests, ...device.requests].filter((r) => r.status === 'pending');
    // Rebuilt only when the list changes, so a username being typed survives the refresh every second.
    const shape = JSON.stringify(waiting);
    if (shape === waitingShape) return;
    waitingShape = shape;
    const body = $('waiting'); body.replaceChildren();
    for (const r of waiting) {
      const tr = document.createElement('tr');
      tr.dataset.kind = r.kind;
      cell(tr, r.kind === 'ciba' ? 'CIBA' : 'device'); cell(tr, r.kind === 'ciba' ? r.auth_req_id : r.user_code, 'mono');
      cell(tr, r.client); cell(tr, r.user); cell(tr, r.binding_message, 'binding'); cell(tr, r.scope);
      cell(tr, r.expires.replace('.000Z', 'Z'), 'nowrap');
      const actions = cell(tr, '', 'nowrap');
      let who = null;
      if (r.kind === 'device') {
        who = document.createElement('input'); who.placeholder = 'username'; who.size = 10;
        who.setAttribute('aria-label', 'user who approves'); actions.appendChild(who);
      }
      const send = (decision) => r.kind === 'ciba'
        ? api('POST', '/ciba', { auth_req_id: r.auth_req_id, decision })
        : api('POST', '/device', { user_code: r.user_code, decision, ...(decision === 'approve' ? { user: who.value.trim() } : {}) });
      for (const decision of ['approve', 'deny']) {
        const b = document.createElement('button'); b.type = 'button'; b.textContent = decision === 'approve' ? 'Approve' : 'Deny';
        b.dataset.decision = decision; b.addEventListener('click', run(() => send(decision)));
        actions.append(' ', b);
      }
      body.appendChild(tr);
    }
    $('waiting-count').textContent = String(waiting.length);
  }
  async function refresh() {
    try {
      await Promise.all([loadSessions(), loadWaiting(), loadClock(), loadFaults(), loadKeys(), loadJournal()]);
    } catch (e) { showError(e.message); }
  }
  $('auth').addEventListener('submit', run(() => {
    token = $('qa-token').value.trim(); sessionStorage.setItem(key, token); $('auth').hidden = true;
  }));
  $('clock-set').addEventListener('submit', run(() => {
    const now = $('clock-to').value.trim();
    return api('PUT', '/clock', { ...(now ? { now: /^-?\\d+$/.test(now) ? Number(now) : now } : {}), frozen: $('clock-freeze').checked });
  }));
  $('clock-advance').addEventListener('submit', run(() => api('POST', '/clock', { seconds: Number($('clock-seconds').value) })));
  $('clock-real').addEventListener('click', run(() => api('DELETE', '/clock')));
  $('fault-add').addEventListener('submit', run(() => {
    const spec = { endpoint: $('fault-endpoint').value, status: Number($('fault-status').value) };
    if ($('fault-error').value.trim()) spec.error = $('fault-error').value.trim();
    if ($('fault-delay').value) spec.delayMs = Number($('fault-delay').value);
    if ($('fault-count').value) spec.count = Number($('fault-count').value);
    return api('POST', '/faults', spec);
  }));
  $('faults-clear').addEventListener('click', run(() => api('DELETE', '/faults')));
  $('keys-rotate').addEventListener('click', run(() => api('POST', '/keys/rotate')));
  $('sessions-end-all').addEventListener('click', run(() => api('DELETE', '/sessions')));
  $('sessions-more').addEventListener('click', run(() => { shown += PAGE; }));
  $('journal-clear').addEventListener('click', run(() => api('DELETE', '/requests')));
  $('decode').addEventListener('submit', run(async () => {
    const v = await api('POST', '/tokens/verify', { token: $('token').value });
    const verdict = $('verdict');
    verdict.textContent = (v.valid ? 'Accepted: ' : 'Refused: ') + v.reason;
    verdict.className = v.valid ? 'ok' : 'bad';
    $('token-header').textContent = v.header ? JSON.stringify(v.header, null, 2) : '';
    $('token-claims').textContent = v.claims ? JSON.stringify(v.claims, null, 2) : '';
  }));
  refresh();
  setInterval(() => { if (!document.hidden) refresh(); }, 1000);
})();`;

function page(realm: string): string {
  const endpoints = FAULT_ENDPOINTS.map((e) => `<option>${escapeHtml(e)}</option>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Inspector · ${escapeHtml(realm)} · mock-idp</title><style>${STYLE}</style></head>
<body>
<header><h1>mock-idp inspector</h1><span class="realm">realm ${escapeHtml(realm)}</span>
<form id="auth" hidden><input id="qa-token" type="password" placeholder="QA token" autocomplete="off"><button>Use</button></form></header>
<p id="error" role="alert"></p>
<main>
<section class="wide"><h2>Sessions (<span id="sessions-count">0</span>) <button id="sessions-end-all" type="button">End all</button></h2>
<div id="sessions-wrap"><table><thead><tr><th>id</th><th>user</th><th>clients</th><th>signed in</th><th>idle expiry</th><th></th></tr></thead><tbody id="sessions"></tbody></table></div>
<p><button id="sessions-more" type="button" hidden>Show more</button></p><p class="section-error" role="alert"></p></section>
<section class="wide"><h2>Waiting for a user (<span id="waiting-count">0</span>)</h2>
<p class="muted">CIBA requests and device codes the user has not yet approved or denied.</p>
<div id="waiting-wrap"><table><thead><tr><th>kind</th><th>auth_req_id / user code</th><th>client</th><th>user</th><th>binding message</th><th>scope</th><th>expires</th><th></th></tr></thead><tbody id="waiting"></tbody></table></div>
<p class="section-error" role="alert"></p></section>
<section><h2>Clock</h2><p><span id="clock-now" class="mono"></span> · <span id="clock-frozen"></span></p>
<form id="clock-set" class="row"><input id="clock-to" placeholder="2030-01-01T00:00:00Z or epoch s" size="24"><label><input id="clock-freeze" type="checkbox"> frozen</label><button>Set</button></form>
<form id="clock-advance" class="row"><input id="clock-seconds" type="number" value="60" size="8"> s <button>Advance</button><button id="clock-real" type="button">Real time</button></form><p class="section-error" role="alert"></p></section>
<section><h2>Faults</h2>
<form id="fault-add" class="row"><select id="fault-endpoint">${endpoints}</select><input id="fault-status" type="number" value="503" min="100" max="599" size="5">
<input id="fault-error" placeholder="error" size="12"><input id="fault-delay" type="number" placeholder="delay ms" size="8"><input id="fault-count" type="number" placeholder="count: always" title="left empty: until cleared" size="10"><button>Add</button></form>
<table><thead><tr><th>endpoint</th><th>status</th><th>error</th><th>delay</th><th>left</th></tr></thead><tbody id="faults"></tbody></table>
<p><button id="faults-clear" type="button">Clear faults</button></p><p class="section-error" role="alert"></p></section>
<section><h2>Keys</h2><ul id="keys"></ul><button id="keys-rotate" type="button">Rotate</button><p class="section-error" role="alert"></p></section>
<section class="wide"><h2>Token decoder</h2>
<form id="decode"><textarea id="token" placeholder="Paste a token (eyJ...)" spellcheck="false"></textarea><p><button>Decode and verify</button></p></form>
<p class="section-error" role="alert"></p><p id="verdict"></p><div class="decoded"><pre id="token-header"></pre><pre id="token-claims"></pre></div></section>
<section class="wide"><h2>Requests (<span id="journal-count">0</span>, newest first) <button id="journal-clear" type="button">Clear</button></h2><p class="section-error" role="alert"></p>
<div id="journal-wrap"><table><thead><tr><th>time</th><th>method</th><th>endpoint</th><th>status</th><th>client</th><th>grant</th><th>user</th><th>error</th><th>ms</th></tr></thead><tbody id="journal"></tbody></table></div></section>
</main>
<script>${SCRIPT}</script>
</body></html>`;
}

export function inspectorPage(realm: () => string): RequestHandler {
  return (_req, res) => {
    securityHeaders(res, { scripts: [SCRIPT], connect: ["'self'"] });
    res
      .status(200)
      .set({ 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' })
      .send(page(realm()));
  };
}
