// Bans: GET /bans, POST /bans to add one, DELETE /bans/{kind}/{value} to lift one, as
// docs/admin-api.md has them:
//   GET    {"bans": [{"kind": "name|uuid|address", "value", "reason"?, "expires"?, "added"?}], "file"}
//   POST   {"kind", "value", "reason"?, "expires"?, "confirm_wide"?} -> {"ban", "replaced", "kicked"}
//   DELETE no body -> {"removed": ban}
import { el, fill, count, when } from '../dom.js';
import { load } from './optional.js';

// body is the ban's JSON, without the keys left empty.
function body(f) {
  const b = { kind: f.kind.value, value: f.value.value.trim() };
  if (f.reason.value.trim()) b.reason = f.reason.value.trim();
  if (f.expires.value.trim()) b.expires = f.expires.value.trim();
  if (f.wide.checked) b.confirm_wide = true;
  return b;
}

const added = (r) => 'banned ' + r.ban.kind + ' ' + r.ban.value + (r.replaced ? ' (replacing its ban)' : '') +
  ': ' + count((r.kicked || []).length, 'session', 'sessions') + ' kicked';

function addForm(ctx) {
  const f = {
    kind: el('select', { name: 'kind' }, ['name', 'uuid', 'address'].map((k) => el('option', { value: k }, k))),
    value: el('input', { type: 'text', name: 'value', placeholder: 'player, UUID, address or network', required: true }),
    reason: el('input', { type: 'text', name: 'reason', placeholder: 'reason (the player reads it)' }),
    expires: el('input', { type: 'text', name: 'expires', placeholder: 'for: 7d, 36h (empty: ever)', size: 22 }),
    wide: el('input', { type: 'checkbox', name: 'confirm_wide' }),
  };
  return el('form', { class: 'ban-add', onsubmit: (e) => {
    e.preventDefault();
    ctx.act('POST', '/bans', (r) => { e.target.reset(); return added(r); }, body(f));
  } }, f.kind, f.value, f.reason, f.expires, el('label', {}, f.wide, ' a network wider than /16 (/32 IPv6)'),
  el('button', { type: 'submit' }, 'Ban'));
}

function lift(b, ctx) {
  const path = '/bans/' + encodeURIComponent(b.kind) + '/' + encodeURIComponent(b.value);
  return el('button', { type: 'button', onclick: () => ctx.act('DELETE', path, () => 'ban of ' + b.kind + ' ' + b.value + ' lifted') }, 'Lift');
}

function render(section, json, ctx) {
  const list = json.bans || [];
  const rows = list.map((b) => el('tr', { 'data-ban': b.kind + ':' + b.value },
    el('td', {}, b.kind), el('td', { class: 'value' }, b.value), el('td', {}, b.reason || ''),
    el('td', {}, b.expires ? when(b.expires) : 'for ever'), el('td', {}, b.added ? when(b.added) : ''), el('td', {}, lift(b, ctx))));
  // The form is kept across refreshes, so that what is being typed stays.
  fill(section, section.querySelector('form.ban-add') || addForm(ctx),
    el('p', { class: 'muted' }, json.file ? 'Kept in ' + json.file : 'Kept in memory only (no bans_file): a restart forgets them'),
    list.length === 0 ? el('p', { class: 'muted' }, 'No bans.') : el('table', {},
      el('thead', {}, el('tr', {}, ['Kind', 'Who', 'Reason', 'Until', 'Added', 'Action'].map((h) => el('th', {}, h)))),
      el('tbody', {}, rows)));
}

export const update = (section, ctx) => load(section, ctx, '/bans', render);
