// The HTTP API (docs/PROTOCOL.md): identity, accounts, matches, lobby, records. The token is an
// HttpOnly cookie the browser sends by itself; this module never sees it.

export class ApiError extends Error {
  constructor(status, code, message, retryAfterS = null) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
    /** Whole seconds from the Retry-After header (a 429 or 503), or null. */
    this.retryAfterS = retryAfterS;
  }
}

function retryAfter(response) {
  const seconds = Number.parseInt(response.headers.get("Retry-After") || "", 10);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}

// The API's first answers, given with the page (docs/PROTOCOL.md, "The client's page"): each is
// taken once, at the first read of its path; a request that changes something forgets them all,
// as they may no longer hold.
let given = null;

function givenAnswer(method, path) {
  if (given === null) {
    try {
      given = new Map(Object.entries(JSON.parse(document.getElementById("client-answers")?.textContent || "{}")));
    } catch {
      given = new Map();
    }
  }
  if (method !== "GET") {
    given.clear();
    return undefined;
  }
  const answer = given.get(path);
  given.delete(path);
  return answer;
}

async function call(method, path, body) {
  const answer = givenAnswer(method, path);
  if (answer !== undefined) return answer;
  const init = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body); // a string is JSON already
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ApiError(0, "network", String(err && err.message ? err.message : err));
  }
  let data = null;
  const text = await response.text();
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!response.ok) {
    const error = data && data.error ? data.error : {};
    throw new ApiError(
      response.status,
      error.code || "http",
      error.message || response.statusText,
      retryAfter(response),
    );
  }
  return data;
}

const GUEST_KEY = "specbid.guest";

function rememberGuest(known) {
  try {
    if (known) localStorage.setItem(GUEST_KEY, "1");
    else localStorage.removeItem(GUEST_KEY);
  } catch {
    /* ignore */
  }
}

function mayHaveGuest() {
  try {
    return localStorage.getItem(GUEST_KEY) === "1";
  } catch {
    return false;
  }
}

/** Who am I? null when the browser has no guest yet. Asked only when this browser created a
 * guest before (the token cookie is HttpOnly, so the page cannot look for it), so that a first
 * visit makes no failing request. */
export async function whoAmI() {
  if (!mayHaveGuest()) return null;
  try {
    const data = await call("GET", "/api/session");
    return data.player;
  } catch (err) {
    if (err.status === 401) {
      rememberGuest(false);
      return null;
    }
    throw err;
  }
}

export async function createGuest(name) {
  const data = await call("POST", "/api/session", { name });
  rememberGuest(true);
  return data.player;
}

/** Log in (or claim the guest's name): the server sets the session cookie. */
async function signIn(path, body) {
  const data = await call("POST", path, body);
  rememberGuest(true);
  return data.player;
}

/** Turn the calling guest into an account under its name. */
export const claimAccount = (password) => signIn("/api/account", { password });
export const logIn = (name, password) => signIn("/api/login", { name, password });

/** End this browser's session; one already gone (401) is as good as ended. */
export async function logOut() {
  try {
    await call("POST", "/api/logout");
  } catch (err) {
    if (err.status !== 401) throw err;
  }
  rememberGuest(false);
}

export const changePassword = (current, password) =>
  call("POST", "/api/account/password", { current, password });

/** control: {} for the server's time control, or {bank_ms, delay_ms} for a casual one;
 * fields: what the mode needs besides ({level} for "bot"). */
export const createMatch = (mode, control = {}, fields = {}) => call("POST", "/api/matches", { mode, ...fields, ...control });
export const joinMatch = (id) => call("POST", `/api/matches/${encodeURIComponent(id)}/join`);
/** After an invitation expired (D3): a new one back to its creator, or an open challenge. */
export const answerExpired = (id, mode) => call("POST", `/api/matches/${encodeURIComponent(id)}/again`, { mode });
export const readMatch = (id) => call("GET", `/api/matches/${encodeURIComponent(id)}`);
export const readChat = (id) => call("GET", `/api/matches/${encodeURIComponent(id)}/chat`);
export const readBoard = (moves) => call("GET", `/api/board?moves=${encodeURIComponent(moves)}`);
export const readLobby = () => call("GET", "/api/lobby");
/** The page of the lobby's finished matches after the cursor before (docs/PROTOCOL.md). */
export const readFinished = (before) => call("GET", `/api/lobby/finished?${new URLSearchParams({ before })}`);
export const readReplay = (id) => call("GET", `/api/matches/${encodeURIComponent(id)}/replay`);
export const readRecord = (id) => call("GET", `/api/matches/${encodeURIComponent(id)}/record`);
/** Have the server check a record document (JSON text) as `specbid replay --verify` does. */
export const verifyRecord = (text) => call("POST", "/api/records/verify", text);
export const readPlayer = (name) => call("GET", `/api/players/${encodeURIComponent(name)}`);
export function readPlayerMatches(name, limit, before) {
  const query = new URLSearchParams({ limit: String(limit) });
  if (before) query.set("before", before);
  return call("GET", `/api/players/${encodeURIComponent(name)}/matches?${query}`);
}
const rematchPath = (id) => `/api/matches/${encodeURIComponent(id)}/rematch`;
export const readRematch = (id) => call("GET", rematchPath(id));
/** Offer a rematch, or accept the opponent's standing offer. */
export const offerRematch = (id) => call("POST", rematchPath(id));
/** Decline the opponent's offer, or withdraw one's own. */
export const declineRematch = (id) => call("DELETE", rematchPath(id));

/** How many times in all a request refused as busy is sent before the page gives up and leaves
 * the choice to try again to the person (docs/PROTOCOL.md "When the server is busy"). */
export const BUSY_TRIES = 4;

/** The whole seconds a refusal asks to wait when it is a busy server's (503 server_busy, its
 * Retry-After, at least 1), or null for any other error. */
export function busyWaitS(err) {
  if (!(err instanceof ApiError) || err.status !== 503 || err.code !== "server_busy") return null;
  return Math.max(1, err.retryAfterS ?? 1);
}

/** make()'s answer, sent again while the server refuses it as busy: after each refusal it waits
 * the server's Retry-After, telling onWait(seconds left, tries so far) every second, and sends at
 * most tries times in all; then the last refusal is thrown. Aborting signal ends the wait with an
 * AbortError; any other error is thrown at once. */
export async function retryWhenBusy(make, { tries = BUSY_TRIES, onWait = () => {}, signal = null } = {}) {
  for (let sent = 1; ; sent += 1) {
    try {
      return await make();
    } catch (err) {
      const waitS = busyWaitS(err);
      if (waitS === null || sent >= tries) throw err;
      await countDown(waitS, (left) => onWait(left, sent), signal);
    }
  }
}

function countDown(seconds, tick, signal) {
  return new Promise((resolve, reject) => {
    let timer = null;
    const abort = () => {
      clearTimeout(timer);
      reject(new DOMException("the retry was cancelled", "AbortError"));
    };
    if (signal && signal.aborted) return abort();
    if (signal) signal.addEventListener("abort", abort, { once: true });
    const step = (left) => {
      if (left <= 0) {
        if (signal) signal.removeEventListener("abort", abort);
        resolve();
        return;
      }
      tick(left);
      timer = setTimeout(() => step(left - 1), 1000);
    };
    step(seconds);
  });
}
