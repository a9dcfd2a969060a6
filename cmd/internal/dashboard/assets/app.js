// The dashboard: reads GET /dashboard/state every few seconds and draws the panels; actions go
// to the admin port's paths with the token, and their answer is said in #notice.
import { call, refusal, token } from './api.js';
import * as overview from './panels/overview.js';
import * as graphs from './panels/graphs.js';
import * as routes from './panels/routes.js';
import * as blocklist from './panels/blocklist.js';
import * as sessions from './panels/sessions.js';
import * as bans from './panels/bans.js';
import * as maintenance from './panels/maintenance.js';

const EVERY_MS = 5000;
const $ = (id) => document.getElementById(id);
let tokenSet = true; // the admin port checks a token; false once the state says it does not

function notify(text, ok) {
  const n = $('notice');
  n.textContent = text;
  n.className = ok ? 'ok' : 'error';
}

// act sends an action and says how it went: done(json) on success, the refusal otherwise.
async function act(method, path, done, body) {
  const r = await call(method, path, body);
  if (r.ok) notify(done(r.json || {}), true);
  else notify(method + ' ' + path + ': ' + refusal(r), false);
  refresh();
}

const ctx = { act, call, refusal, signedIn: () => token.get() !== '' };

function showToken() {
  const state = $('token-state');
  if (!tokenSet) state.textContent = 'this admin port has no token: anyone who reaches it can act';
  else state.textContent = token.get() ? 'token in use (this tab only)' : 'read-only';
}

async function useToken(event) {
  event.preventDefault();
  const value = $('token-input').value.trim();
  $('token-input').value = '';
  if (!value) return;
  if (!tokenSet) {
    notify('this admin port has no token: its actions need none', true);
    return;
  }
  token.set(value);
  const r = await call('POST', '/dashboard/check');
  if (r.ok) {
    notify('token accepted', true);
  } else {
    token.forget();
    notify('token not accepted: ' + refusal(r), false);
  }
  showToken();
  refresh();
}

let running = null;

// refresh draws every panel once; a refresh asked for while one runs waits for it.
function refresh() {
  running = (running || Promise.resolve()).then(draw, draw);
  return running;
}

async function draw() {
  const r = await call('GET', '/dashboard/state');
  if (!r.ok || !r.json) {
    notify('the dashboard state: ' + refusal(r), false);
    return;
  }
  const st = r.json;
  tokenSet = st.token_set;
  showToken();
  // Each panel draws on its own: one that fails (an API whose JSON is not what it reads) says
  // so and leaves the others drawn.
  const panels = {
    overview: () => overview.render($('panel-overview'), st),
    graphs: () => graphs.render($('panel-graphs'), st.history),
    routes: () => routes.render($('panel-routes'), st, ctx),
    blocklist: () => blocklist.render($('panel-blocklist'), st, ctx),
    sessions: () => sessions.update($('panel-sessions'), ctx),
    bans: () => bans.update($('panel-bans'), ctx),
    maintenance: () => maintenance.update($('panel-maintenance'), ctx),
  };
  const names = Object.keys(panels);
  const results = await Promise.allSettled(names.map(async (name) => panels[name]()));
  const failed = results.findIndex((res) => res.status === 'rejected');
  if (failed >= 0) notify('the ' + names[failed] + ' panel failed: ' + results[failed].reason, false);
  document.body.dataset.drawn = String(Number(document.body.dataset.drawn || 0) + 1);
}

$('token-form').addEventListener('submit', useToken);
$('token-forget').addEventListener('click', () => { token.forget(); notify('token forgotten: read-only', true); showToken(); refresh(); });
refresh();
setInterval(refresh, EVERY_MS);
