// Maintenance: GET /maintenance, PUT /maintenance to switch it and to set who is let in (both
// with the token). The JSON read and sent here is the part of the maintenance API
// (docs/maintenance.md) the panel uses:
//   GET {"on": bool, "message", "routes": [{"route", "on"}], "maintenance": [entry in force]}
//   PUT {"on": bool} for every route, {"route", "on"} for one route; an entry as GET lists it
//       (its own keys only) with a new "allow", so that its message, times and icon stay
import { el, fill } from '../dom.js';
import { load } from './optional.js';

const on = (m) => m.on === true;
const scope = (route) => route || 'every route';

function toggle(ctx, label, current, body) {
  return el('button', { type: 'button', onclick: () => ctx.act('PUT', '/maintenance',
    () => 'maintenance ' + (current ? 'off' : 'on') + ' for ' + label, { ...body, on: !current }) },
  current ? 'End maintenance' : 'Start maintenance');
}

// putKeys are an entry's keys PUT takes back as they are (GET adds "active" and "source").
const putKeys = ['route', 'on', 'motd', 'icon', 'version', 'message', 'start', 'end'];
const entryFields = (entry) => Object.fromEntries(putKeys.filter((k) => entry[k] != null).map((k) => [k, entry[k]]));

// allowInput is the allowlist editor of entry, kept across refreshes once something was typed
// in it (until it is saved), so that what is typed stays; otherwise it shows the list in force.
function allowInput(body, entry) {
  const route = entry.route || '';
  const input = [...body.querySelectorAll('input.allow')].find((i) => i.dataset.route === route) ||
    el('input', { type: 'text', class: 'allow', size: 40, 'aria-label': 'players let in during maintenance of ' + scope(route),
      placeholder: 'names or UUIDs, comma-separated', oninput: (e) => { e.target.dataset.edited = 'true'; } });
  input.dataset.route = route;
  if (input.dataset.edited !== 'true') input.value = (entry.allow || []).join(', ');
  return input;
}

// allowForm sets entry's allowlist: the entry is sent back whole, with the list typed.
function allowForm(body, ctx, entry) {
  const input = allowInput(body, entry);
  return el('form', { class: 'allow-form', onsubmit: (e) => {
    e.preventDefault();
    const allow = input.value.split(/[\s,]+/).filter(Boolean);
    input.dataset.edited = 'false';
    ctx.act('PUT', '/maintenance', () => 'allowlist of ' + scope(entry.route) + ': ' + (allow.length ? allow.join(', ') : 'nobody'),
      { ...entryFields(entry), allow });
  } }, 'Let in (' + scope(entry.route) + '): ', input, ' ', el('button', { type: 'submit' }, 'Save allowlist'));
}

function render(body, json, ctx) {
  const routes = Array.isArray(json.routes) ? json.routes : [];
  const entries = (Array.isArray(json.maintenance) ? json.maintenance : []).filter(on);
  fill(body,
    el('p', { 'data-maintenance': on(json) ? 'on' : 'off' }, 'Whole proxy: ' + (on(json) ? 'on' : 'off') + ' ',
      toggle(ctx, 'every route', on(json), {})),
    json.message ? el('p', { class: 'muted', 'data-message': true }, 'Message: ' + json.message) : null,
    routes.length ? el('ul', {}, routes.map((r) => el('li', {}, r.route + ': ' + (on(r) ? 'on' : 'off') + ' ',
      toggle(ctx, r.route, on(r), { route: r.route })))) : null,
    entries.map((entry) => allowForm(body, ctx, entry)));
}

export const update = (section, ctx) => load(section, ctx, '/maintenance', render);
