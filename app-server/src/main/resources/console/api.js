// The console's only way to the server: the public /v1 API, with the signed-in user's bearer token.
// The token lives in this tab's sessionStorage (never in a URL, a cookie or localStorage).

import { localTime } from './dom.js';

const TOKEN_KEY = 'qinglong.console.token';
const PROJECT_KEY = 'qinglong.console.project';

export const session = {
  get token() {
    return sessionStorage.getItem(TOKEN_KEY);
  },
  get project() {
    return sessionStorage.getItem(PROJECT_KEY);
  },
  signIn(token, project) {
    sessionStorage.setItem(TOKEN_KEY, token);
    sessionStorage.setItem(PROJECT_KEY, project);
  },
  signOut() {
    sessionStorage.clear();
  },
};

/** A path under the signed-in Project, each segment percent-encoded. */
export function projectPath(...segments) {
  return ['/v1/projects', session.project, ...segments].map((s, i) => (i === 0 ? s : encodeURIComponent(s))).join('/');
}

/** A fresh idempotency id (actionRef, decisionId, inspectionId): 1–128 chars of [A-Za-z0-9._:-]. */
export function newId(prefix) {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return prefix + '-' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * One API call. Resolves to {status, ok, json, code, detail, retryAfter, serverSkewMs}; rejects only
 * when the server cannot be reached.
 */
export async function call(method, path, body) {
  const headers = { Accept: 'application/json, application/problem+json', Authorization: 'Bearer ' + session.token };
  const init = { method, headers, cache: 'no-store', credentials: 'omit', redirect: 'error', referrerPolicy: 'no-referrer' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const started = Date.now();
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    return { status: 0, ok: false, json: null, code: 'network', detail: null, retryAfter: null, serverSkewMs: 0 };
  }
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  const retry = Number.parseInt(response.headers.get('Retry-After') ?? '', 10);
  const date = Date.parse(response.headers.get('Date') ?? '');
  return {
    status: response.status,
    ok: response.ok,
    json,
    code: json && json.error ? json.error.code : null,
    detail: json && typeof json.detail === 'string' ? json.detail : null,
    retryAfter: Number.isFinite(retry) ? retry : null,
    // server clock minus browser clock (whole seconds), to count down a window's reset
    serverSkewMs: Number.isFinite(date) ? date - started : 0,
  };
}

const OPERATION_NAMES = { propose: 'propose', decide: 'decide', inspect: 'inspect' };

/** When a retry may succeed, as text: "in 42 s (at 2026-12-04 10:15:07 UTC)". */
export function retryText(seconds) {
  return `in ${seconds} s (at ${localTime(Date.now() + seconds * 1000)})`;
}

/** A sentence that explains a failed call to a person. */
export function explain(r, operation) {
  const what = OPERATION_NAMES[operation] ?? operation ?? 'request';
  switch (r.code) {
    case 'unauthenticated':
      return 'Your token was not accepted. Sign out and sign in again with a valid token.';
    case 'forbidden':
      return `You are not allowed to ${what} in Project ${session.project}: your permissions there do not include it.`;
    case 'quota_exceeded':
      return (
        `Quota exceeded: your ${what} quota in Project ${session.project} for the current window is used up. ` +
        `The window resets and you can try again ${retryText(r.retryAfter ?? 1)}.`
      );
    case 'model_project_quota_exceeded':
      return `The Project's model quota for this window is used up; try again ${retryText(r.retryAfter ?? 1)}.`;
    case 'too_many_requests':
      return `The server is shedding load from your address (too many concurrent requests); try again ${retryText(r.retryAfter ?? 1)}.`;
    case 'unavailable':
      return `The service is unavailable (nothing was allowed)${r.retryAfter ? '; try again ' + retryText(r.retryAfter) : ''}. Submitting again sends the same request with the same id.`;
    case 'idempotency_key_reused':
      return 'This request id was already used for a different request.';
    case 'conflict':
      return `Conflict: ${r.detail ?? 'the object does not exist or is in another state.'}`;
    case 'invalid_request':
      return `Invalid request: ${r.detail ?? 'check the fields.'}`;
    case 'network':
      return 'The server cannot be reached, or its answer was lost. Submitting again sends the same request with the same id, so it is never done twice.';
    case 'not_found':
      return 'Not available on this server (the route does not exist here).';
    default:
      return `The server answered ${r.status}${r.code ? ' (' + r.code + ')' : ''}${r.detail ? ': ' + r.detail : ''}.`;
  }
}
