// A panel whose endpoint a proxy may not have (sessions, bans, maintenance): it reads path and
// renders the answer; on 404 it says "not available", on 401 that it needs the token. Once an
// endpoint asked for the token, it is not asked again without one (no 401 every refresh).
import { fill } from '../dom.js';

export async function load(section, ctx, path, render) {
  const status = section.querySelector('.status');
  const body = section.querySelector('.body');
  if (!ctx.signedIn() && section.dataset.needsToken === 'true') {
    fill(body);
    return;
  }
  const r = await ctx.call('GET', path);
  section.dataset.needsToken = String(r.status === 401);
  if (!r.ok || r.json == null) {
    status.textContent = r.ok ? 'not available: ' + path + ' answered no JSON' : (r.status === 404 ? 'not available on this proxy' : ctx.refusal(r));
    fill(body);
    return;
  }
  status.textContent = '';
  render(body, r.json, ctx);
}
