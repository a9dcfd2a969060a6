// Players online: GET /sessions (token needed), and per session POST /sessions/{id}/kick,
// /transfer and /ban. The JSON read here is the sessions API's as planned:
//   {"sessions": [{"id", "route", "name", "uuid", "address", "transport", "up", "down", "since"}]}
// (a bare list is read too). Adapt fields() when the API's names differ.
import { el, fill, bytes, when } from '../dom.js';
import { load } from './optional.js';

function fields(s) {
  return {
    id: String(s.id), route: s.route || '', name: s.name || s.player || '', uuid: s.uuid || '',
    address: s.address || s.client || '', transport: s.transport || s.protocol || '',
    up: s.up ?? s.bytes_up ?? 0, down: s.down ?? s.bytes_down ?? 0, since: s.since || '',
  };
}

function row(s, ctx, reason) {
  const path = '/sessions/' + encodeURIComponent(s.id) + '/';
  const act = (verb, done) => el('button', { type: 'button',
    onclick: () => ctx.act('POST', path + verb, () => done, { message: reason.value, reason: reason.value }) }, verb);
  return el('tr', { 'data-session': s.id },
    el('td', {}, s.name), el('td', {}, s.uuid), el('td', {}, s.route), el('td', {}, s.address), el('td', {}, s.transport),
    el('td', { class: 'num' }, bytes(s.up) + ' / ' + bytes(s.down)), el('td', {}, s.since ? when(s.since) : ''),
    el('td', {}, act('kick', s.name + ' kicked'), ' ', act('transfer', s.name + ' moved'), ' ', act('ban', s.name + ' banned')));
}

function render(body, json, ctx) {
  const list = (Array.isArray(json) ? json : json.sessions || []).map(fields);
  // The reason field is kept across refreshes, so that what is being typed stays.
  const reason = body.querySelector('input.reason') ||
    el('input', { type: 'text', class: 'reason', placeholder: 'message or reason for kick and ban', size: 40 });
  if (list.length === 0) {
    fill(body, el('p', { class: 'muted' }, 'Nobody is online.'));
    return;
  }
  fill(body, el('p', {}, reason), el('table', {},
    el('thead', {}, el('tr', {}, ['Player', 'UUID', 'Route', 'Address', 'Transport', 'Up / down', 'Since', 'Action'].map((h) => el('th', {}, h)))),
    el('tbody', {}, list.map((s) => row(s, ctx, reason)))));
}

export const update = (section, ctx) => load(section, ctx, '/sessions', render);
