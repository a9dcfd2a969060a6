// Bans: GET /bans, POST /bans to add one, DELETE /bans to lift one. The JSON read and sent
// here is the bans API's as planned:
//   GET    {"bans": [{"kind": "name|uuid|address", "value", "reason", "until"}]} (or a bare list)
//   POST   {"kind", "value", "reason", "for"}   ("for": a Go duration, "" for ever)
//   DELETE {"kind", "value"}
// Adapt fields() and the bodies when the API's names differ.
import { el, fill, when } from '../dom.js';
import { load } from './optional.js';

function fields(b) {
  return { kind: b.kind || '', value: b.value || b.name || b.uuid || b.address || '', reason: b.reason || '', until: b.until || b.expires || '' };
}

function addForm(ctx) {
  const kind = el('select', {}, ['name', 'uuid', 'address'].map((k) => el('option', { value: k }, k)));
  const value = el('input', { type: 'text', placeholder: 'player, UUID or address', required: true });
  const reason = el('input', { type: 'text', placeholder: 'reason' });
  const length = el('input', { type: 'text', placeholder: 'for (e.g. 24h; empty: for ever)', size: 12 });
  return el('form', { class: 'ban-add', onsubmit: (e) => {
    e.preventDefault();
    ctx.act('POST', '/bans', () => value.value + ' banned', { kind: kind.value, value: value.value, reason: reason.value, for: length.value });
  } }, kind, value, reason, length, el('button', { type: 'submit' }, 'Ban'));
}

function render(body, json, ctx) {
  const list = (Array.isArray(json) ? json : json.bans || []).map(fields);
  const rows = list.map((b) => el('tr', { 'data-ban': b.kind + ':' + b.value },
    el('td', {}, b.kind), el('td', {}, b.value), el('td', {}, b.reason), el('td', {}, b.until ? when(b.until) : 'for ever'),
    el('td', {}, el('button', { type: 'button',
      onclick: () => ctx.act('DELETE', '/bans', () => 'ban of ' + b.value + ' lifted', { kind: b.kind, value: b.value }) }, 'Lift'))));
  // The form is kept across refreshes, so that what is being typed stays.
  fill(body, body.querySelector('form.ban-add') || addForm(ctx), list.length === 0 ? el('p', { class: 'muted' }, 'No bans.') : el('table', {},
    el('thead', {}, el('tr', {}, ['Kind', 'Who', 'Reason', 'Until', 'Action'].map((h) => el('th', {}, h)))),
    el('tbody', {}, rows)));
}

export const update = (section, ctx) => load(section, ctx, '/bans', render);
