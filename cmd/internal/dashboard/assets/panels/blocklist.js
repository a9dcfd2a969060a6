// The block list: the count from GET /dashboard/state; with the token, the networks from
// GET /blocklist; the action POST /blocklist/clear.
import { el, fill, when, count } from '../dom.js';

export async function render(section, st, ctx) {
  const body = section.querySelector('.body');
  const clear = el('button', { id: 'blocklist-clear', type: 'button',
    onclick: () => ctx.act('POST', '/blocklist/clear', (j) => 'block list cleared: ' + count(j.cleared, 'address', 'addresses')) }, 'Clear block list');
  const blocked = el('p', { class: 'blocked-count' }, count(st.blocked, 'address', 'addresses') + ' blocked now.');
  if (!ctx.signedIn() || st.blocked === 0) {
    fill(body, blocked, clear);
    return;
  }
  const r = await ctx.call('GET', '/blocklist');
  const list = r.ok && r.json ? el('ul', {}, r.json.blocked.map((b) => el('li', {}, b.network + ' until ' + when(b.until)))) : null;
  fill(body, blocked, list, clear);
}
