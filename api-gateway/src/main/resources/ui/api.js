// The public REST API, as any script calls it: a bearer token (kept for this tab) when the gateway asks for one.
const TOKEN = 'millrace.token';
const BASE = '/api/v1';

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export function token() {
  return sessionStorage.getItem(TOKEN);
}

export function signIn(value) {
  sessionStorage.setItem(TOKEN, value);
}

export function signOut() {
  sessionStorage.removeItem(TOKEN);
}

function headers(type) {
  const h = {Accept: 'application/json'};
  if (type) h['Content-Type'] = type;
  if (token()) h.Authorization = 'Bearer ' + token();
  return h;
}

/** A call of the API: the JSON answer, or null for one without a body; an ApiError with the API's message else. */
export async function api(path, {method = 'GET', body, type} = {}) {
  const answer = await fetch(BASE + path, {method, headers: headers(body === undefined ? type : type || 'application/json'),
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)});
  const text = await answer.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!answer.ok) {
    throw new ApiError(answer.status, (json && json.message) || text || answer.statusText);
  }
  return json;
}

/** The API's text at {@code path} (a log download), with the caller's token. */
export async function text(path) {
  const answer = await fetch(BASE + path, {headers: headers()});
  if (!answer.ok) throw new ApiError(answer.status, answer.statusText);
  return answer.text();
}

/**
 * Follows server-sent events at {@code path}, calling {@code onEvent(name, data)} for each; fetch, not EventSource,
 * so that the token travels in a header. Returns a function that stops following.
 */
export function follow(path, onEvent, onEnd = () => {}) {
  const abort = new AbortController();
  (async () => {
    try {
      const answer = await fetch(BASE + path, {headers: {...headers(), Accept: 'text/event-stream'}, signal: abort.signal});
      if (!answer.ok || !answer.body) throw new ApiError(answer.status, answer.statusText);
      const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const {value, done} = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let name = 'message';
          const data = [];
          for (const line of frame.split('\n')) {
            if (line.startsWith('event:')) name = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
          }
          if (data.length) onEvent(name, data.join('\n'));
        }
      }
      onEnd(null);
    } catch (e) {
      if (!abort.signal.aborted) onEnd(e);
    }
  })();
  return () => abort.abort();
}

const ROLES = ['viewer', 'runner', 'editor', 'admin'];
let caller = null;

/** Who the token is and its grants ({@code GET /api/v1/me}), asked once a token. */
export function me() {
  const asked = token();
  if (!caller || caller.token !== asked) {
    caller = {token: asked, answer: api('/me').catch((e) => {
      caller = null;
      throw e;
    })};
  }
  return caller.answer;
}

/** Whether {@code who} (as {@link me} answers) has {@code role} or more on {@code namespace}; on some namespace if null. */
export function may(who, role, namespace) {
  return who.grants.some((g) => ROLES.indexOf(g.role) >= ROLES.indexOf(role) && (namespace == null
    || g.namespace === '*' || namespace === g.namespace || namespace.startsWith(g.namespace + '.')));
}
