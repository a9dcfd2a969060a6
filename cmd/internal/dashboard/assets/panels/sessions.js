// Players online: GET /sessions (token needed), and per session POST /sessions/{id}/kick,
// /transfer and /ban, as docs/admin-api.md has them:
//   GET      {"sessions": [{"id", "route", "player", "uuid", "online", "client", "transport",
//             "bytes_up", "bytes_down", "since", "relaying"}]}
//   kick     {"message"}          -> {"id", "disconnect_sent", "note"?}
//   ban      {"reason"?, "expires"?} -> POST /bans's answer
//   transfer {"host", "port"}     -> {"id", "to", "transfer_sent", "note"?}
import { el, fill, bytes, when } from '../dom.js';
import { load } from './optional.js';

// controls are the inputs the rows' actions read; kept across refreshes, so that what is
// being typed stays.
function controls(body) {
  const input = (cls, placeholder, size) => body.querySelector('input.' + cls) ||
    el('input', { type: 'text', class: cls, placeholder, size });
  return {
    message: input('message', 'kick message (the player reads it)', 30),
    reason: input('reason', 'ban reason', 20),
    expires: input('expires', 'ban for: 7d, 36h (empty: ever)', 24),
    target: input('target', 'move to host:port', 22),
  };
}

// target reads "host:port" (a bracketed IPv6 host too); null when it is not that.
function target(text) {
  const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(text.trim());
  return m ? { host: m[1], port: Number(m[2]) } : null;
}

// banBody is the ban's JSON, without the keys left empty.
function banBody(c) {
  const b = {};
  if (c.reason.value.trim()) b.reason = c.reason.value.trim();
  if (c.expires.value.trim()) b.expires = c.expires.value.trim();
  return b;
}

const kicked = (who, r) => who + (r.disconnect_sent ? ' kicked' : ' kicked: ' + (r.note || 'closed without a Disconnect'));
const moved = (who, r) => r.transfer_sent ? who + ' sent to ' + r.to : who + ' not moved: ' + (r.note || 'the Transfer did not go out');
const banned = (who, r) => who + ' banned by ' + r.ban.kind + ' ' + r.ban.value;

function actions(s, ctx, c) {
  const who = s.player || 'session ' + s.id;
  const path = '/sessions/' + encodeURIComponent(s.id) + '/';
  const button = (verb, onclick) => el('button', { type: 'button', onclick }, verb);
  const move = () => {
    const to = target(c.target.value);
    if (!to) ctx.notify('to move ' + who + ', say where: host:port', false);
    else ctx.act('POST', path + 'transfer', (r) => moved(who, r), to);
  };
  return [
    button('kick', () => ctx.act('POST', path + 'kick', (r) => kicked(who, r), { message: c.message.value })),
    s.transport === 'minecraft' && s.relaying ? button('transfer', move) : null, // the API moves only these
    button('ban', () => ctx.act('POST', path + 'ban', (r) => banned(who, r), banBody(c))),
  ];
}

function row(s, ctx, c) {
  return el('tr', { 'data-session': s.id },
    el('td', { class: 'player' }, s.player || ''),
    el('td', {}, s.uuid || ''), el('td', {}, s.online ? 'yes' : 'no'), el('td', {}, s.route || ''),
    el('td', {}, s.client), el('td', {}, s.transport),
    el('td', { class: 'num' }, bytes(s.bytes_up || 0) + ' / ' + bytes(s.bytes_down || 0)),
    el('td', {}, s.since ? when(s.since) : ''),
    el('td', { class: 'actions' }, actions(s, ctx, c)));
}

function render(body, json, ctx) {
  const list = json.sessions || [];
  const c = controls(body);
  if (list.length === 0) {
    fill(body, el('p', { class: 'muted' }, 'Nobody is online.'));
    return;
  }
  fill(body, el('p', { class: 'session-controls' }, c.message, c.reason, c.expires, c.target), el('table', {},
    el('thead', {}, el('tr', {}, ['Player', 'UUID', 'Verified', 'Route', 'Client', 'Transport', 'Up / down', 'Since', 'Action']
      .map((h) => el('th', {}, h)))),
    el('tbody', {}, list.map((s) => row(s, ctx, c)))));
}

export const update = (section, ctx) => load(section, ctx, '/sessions', render);
