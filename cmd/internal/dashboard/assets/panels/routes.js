// The routes table, from GET /dashboard/state; its action is POST /transfer?route=.
import { el, fill, count } from '../dom.js';

function backend(b) {
  const state = !b.checked ? 'not checked' : b.up ? 'up' : 'down';
  const dot = !b.checked ? 'dot' : b.up ? 'dot up' : 'dot down';
  return el('li', { 'data-backend': b.addr, 'data-state': state },
    el('span', { class: dot, title: state }), b.addr + ' — ' + state + ', ' + count(b.sessions, 'session', 'sessions'));
}

function row(r, ctx) {
  const move = el('button', { type: 'button', onclick: () => ctx.act('POST', '/transfer?route=' + encodeURIComponent(r.label),
    (j) => 'players of ' + r.label + ': ' + j.transferring + ' moving, ' + j.staying + ' staying') }, 'Move players');
  const where = r.hosts.join(', ') + (r.paths.length ? ' ' + r.paths.join(', ') : '');
  return el('tr', { 'data-route': r.label },
    el('td', { class: 'route-label' }, r.label),
    el('td', {}, where),
    el('td', { class: 'num players' }, r.max_players ? r.players + ' / ' + r.max_players : String(r.players)),
    el('td', {}, el('ul', { class: 'backends' }, r.backends.map(backend))),
    el('td', {}, move));
}

export function render(section, st, ctx) {
  const body = section.querySelector('.body');
  if (st.routes.length === 0) {
    fill(body, el('p', { class: 'muted' }, 'No routes.'));
    return;
  }
  fill(body, el('table', {},
    el('thead', {}, el('tr', {}, el('th', {}, 'Route'), el('th', {}, 'Hosts'), el('th', { class: 'num' }, 'Players'),
      el('th', {}, 'Backends'), el('th', {}, 'Action'))),
    el('tbody', {}, st.routes.map((r) => row(r, ctx)))));
}
