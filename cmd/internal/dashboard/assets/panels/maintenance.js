// Maintenance: GET /maintenance, PUT /maintenance to switch it. The JSON read and sent here is
// the maintenance API's as planned:
//   GET {"on": bool, "message", "routes": [{"route", "on"}]}
//   PUT {"on": bool} for all, {"route", "on"} for one route
// Adapt on() and the bodies when the API's names differ.
import { el, fill } from '../dom.js';
import { load } from './optional.js';

const on = (m) => Boolean(m.on ?? m.enabled ?? m.active);

function toggle(ctx, label, current, body) {
  return el('button', { type: 'button', onclick: () => ctx.act('PUT', '/maintenance',
    () => 'maintenance ' + (current ? 'off' : 'on') + ' for ' + label, { ...body, on: !current }) },
  current ? 'End maintenance' : 'Start maintenance');
}

function render(body, json, ctx) {
  const routes = Array.isArray(json.routes) ? json.routes : [];
  fill(body,
    el('p', { 'data-maintenance': on(json) ? 'on' : 'off' }, 'Whole proxy: ' + (on(json) ? 'on' : 'off') + ' ',
      toggle(ctx, 'every route', on(json), {})),
    json.message ? el('p', { class: 'muted' }, 'Message: ' + json.message) : null,
    routes.length ? el('ul', {}, routes.map((r) => el('li', {}, r.route + ': ' + (on(r) ? 'on' : 'off') + ' ',
      toggle(ctx, r.route, on(r), { route: r.route })))) : null);
}

export const update = (section, ctx) => load(section, ctx, '/maintenance', render);
