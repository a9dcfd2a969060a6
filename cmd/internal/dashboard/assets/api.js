// Requests to the admin port. The token lives in this tab's sessionStorage only (never in a
// cookie or localStorage) and goes out as Authorization: Bearer; the admin guard checks it.

const KEY = 'moonbridge.admin.token';

export const token = {
  get: () => sessionStorage.getItem(KEY) || '',
  set: (value) => sessionStorage.setItem(KEY, value),
  forget: () => sessionStorage.removeItem(KEY),
};

// call sends one request and resolves to {status, ok, json, text}; status 0 when the proxy did
// not answer at all. It never throws.
export async function call(method, path, body) {
  const headers = {};
  if (token.get()) headers.Authorization = 'Bearer ' + token.get();
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res;
  try {
    res = await fetch(path, { method, headers, cache: 'no-store', credentials: 'omit', redirect: 'error',
      body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    return { status: 0, ok: false, json: null, text: String(err) };
  }
  const text = await res.text();
  let json = null;
  if ((res.headers.get('Content-Type') || '').startsWith('application/json')) {
    try { json = JSON.parse(text); } catch { json = null; }
  }
  return { status: res.status, ok: res.ok, json, text };
}

// refusal says in words why an answer is not a success.
export function refusal(r) {
  switch (r.status) {
    case 0: return 'the proxy did not answer (' + r.text + ')';
    case 401: return 'refused: this needs the admin token (401)';
    case 403: return 'refused: the admin port forbids this request (403)';
    case 404: return 'not available on this proxy (404)';
  }
  return 'failed (' + r.status + '): ' + r.text.trim().slice(0, 300);
}
