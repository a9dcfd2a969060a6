// Building the page without innerHTML: every text goes in as a text node, so a route name or a
// message from the config or an API writer is shown as it is, never run.

// el makes an element: attrs are set with setAttribute, except on* (listeners); children are
// nodes or strings (text).
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else if (value !== false && value != null) node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child != null) node.append(child);
  }
  return node;
}

// fill replaces what node holds with children.
export function fill(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c != null));
}

// count says n things: count(1, 'address', 'addresses') -> "1 address".
export function count(n, one, many) {
  return n + ' ' + (n === 1 ? one : many);
}

const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

// bytes says n bytes with a binary unit: 1536 -> "1.5 KiB".
export function bytes(n) {
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return (i === 0 ? Math.round(n) : n.toFixed(1)) + ' ' + units[i];
}

// clock says Unix seconds t as the time of day in the browser's locale.
export function clock(t) {
  return new Date(t * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

// when says a time (RFC 3339 or Unix seconds) in the browser's locale.
export function when(t) {
  const d = typeof t === 'number' ? new Date(t * 1000) : new Date(t);
  return isNaN(d) ? String(t) : d.toLocaleString();
}
