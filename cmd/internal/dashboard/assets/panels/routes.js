// The routes table, from GET /dashboard/state; its action is POST /transfer?route=&to=, which
// moves a route's raw TCP players to another instance (docs/running.md).
import { el, fill, count } from '../dom.js';

function backend(b) {
  const state = !b.checked ? 'not checked' : b.up ? 'up' : 'down';
  const dot = !b.checked ? 'dot' : b.up ? 'dot up' : 'dot down';
  return el('li', { 'data-backend': b.addr, 'data-state': state },
    el('span', { class: dot, title: state }), b.addr + ' — ' + state + ', ' + count(b.sessions, 'session', 'sessions'));
}

// destination is the input the moves read, kept across refreshes so that what is being typed
// stays.
function destination(section) {
  return section.querySelector('input.move-to') ||
    el('input', { type: 'text', class: 'move-to', placeholder: 'move to another instance: host:port', size: 32 });
}

function row(r, ctx, to) {
  const move = () => {
    const where = to.value.trim();
    if (!where) {
      ctx.notify('to move the players of ' + r.label + ', say where: another instance\'s host:port', false);
      return;
    }
    ctx.act('POST', '/transfer?route=' + encodeURIComponent(r.label) + '&to=' + encodeURIComponent(where),
      (j) => 'players of ' + r.label + ' to ' + j.to + ': ' + j.transferring + ' moving, ' + j.staying + ' staying');
  };
  const where = r.hosts.join(', ') + (r.paths.length ? ' ' + r.paths.join(', ') : '');
  return el('tr', { 'data-route': r.label },
    el('td', { class: 'route-label' }, r.label),
    el('td', {}, where),
    el('td', { class: 'num players' }, r.max_players ? r.players + ' / ' + r.max_players : String(r.players)),
    el('td', {}, el('ul', { class: 'backends' }, r.backends.map(backend))),
    el('td', {}, el('button', { type: 'button', onclick: move }, 'Move players')));
}

export function render(section, st, ctx) {
  const body = section.querySelector('.body');
  if (st.routes.length === 0) {
    fill(body, el('p', { class: 'muted' }, 'No routes.'));
    return;
  }
  const to = destination(section);
  fill(body, el('p', { class: 'route-controls' }, to), el('table', {},
    el('thead', {}, el('tr', {}, el('th', {}, 'Route'), el('th', {}, 'Hosts'), el('th', { class: 'num' }, 'Players'),
      el('th', {}, 'Backends'), el('th', {}, 'Action'))),
    el('tbody', {}, st.routes.map((r) => row(r, ctx, to)))));
}
