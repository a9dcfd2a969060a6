// The overview cards, from GET /dashboard/state.
import { el, fill, bytes, count } from '../dom.js';

function card(label, value, detail, alert) {
  return el('div', { class: alert ? 'card alert' : 'card', 'data-card': label },
    el('div', { class: 'label' }, label), el('div', { class: 'value' }, String(value)),
    detail ? el('div', { class: 'detail' }, detail) : null);
}

function meterDetail(m) {
  const parts = [m.rate > 0 ? m.rate + '/s, queue ' + m.queue : 'unmetered', m.sent + ' sent', m.refused + ' refused'];
  if (m.strict) parts.push('strict (attack mode)');
  if (m.paused_seconds > 0) parts.push('paused ' + Math.ceil(m.paused_seconds) + ' s');
  return parts.join(' · ');
}

export function render(section, st) {
  fill(section,
    card('Status', st.ready ? 'ready' : 'not ready', st.reason, !st.ready),
    card('Players', st.players, count(st.sessions, 'session', 'sessions')),
    card('Attack mode', st.attack_mode.on ? 'on' : 'off', 'started ' + count(st.attack_mode.activations, 'time', 'times') + ' since the start', st.attack_mode.on),
    card('Blocked', st.blocked, 'on the block list', st.blocked > 0),
    card('Login meter', st.login_meter.waiting + ' waiting', meterDetail(st.login_meter), st.login_meter.paused_seconds > 0),
    card('Memory', st.memory_refusing ? 'refusing logins' : 'ok', null, st.memory_refusing),
    card('Relayed', bytes(st.relayed.up + st.relayed.down), bytes(st.relayed.up) + ' up, ' + bytes(st.relayed.down) + ' down'));
}
