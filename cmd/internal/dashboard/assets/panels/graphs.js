// The last hour's graphs, from the history of GET /dashboard/state: players, and bytes a
// second each way. Inline SVG drawn with DOM calls.
import { el, fill, bytes, clock } from '../dom.js';

const NS = 'http://www.w3.org/2000/svg';
const W = 600, H = 100;

function svg(tag, attrs) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

// line is the polyline of values over the points' times, scaled to top.
function line(points, value, top, cls) {
  const t0 = points[0].t, span = Math.max(points[points.length - 1].t - t0, 1);
  const coords = points.map((p) => ((p.t - t0) / span * W).toFixed(1) + ',' + (H - value(p) / top * H * 0.9).toFixed(1));
  return svg('polyline', { points: coords.join(' '), class: cls });
}

function graph(name, caption, points, series, fmt) {
  const top = Math.max(1, ...points.flatMap((p) => series.map((s) => s.value(p))));
  const pic = svg('svg', { class: 'graph', viewBox: '0 0 ' + W + ' ' + H, preserveAspectRatio: 'none', role: 'img',
    'aria-label': caption, 'data-graph': name, 'data-points': points.length });
  for (const s of series) pic.append(line(points, s.value, top, s.cls));
  const span = clock(points[0].t) + ' – ' + clock(points[points.length - 1].t);
  return el('figure', {}, el('figcaption', {}, caption + ' (top: ' + fmt(top) + '; ' + span + ')'), pic);
}

export function render(section, history) {
  const box = section.querySelector('.graphs');
  const points = history.points;
  if (points.length < 2) {
    fill(box, el('p', { class: 'muted' }, 'Collecting: a point every ' + history.every_seconds + ' s; the graphs start at the second.'));
    return;
  }
  fill(box,
    graph('players', 'Players', points, [{ value: (p) => p.players, cls: 'players' }], String),
    graph('bandwidth', 'Bandwidth: up and down a second', points,
      [{ value: (p) => p.up_bps, cls: 'up' }, { value: (p) => p.down_bps, cls: 'down' }], (n) => bytes(n) + '/s'));
}
