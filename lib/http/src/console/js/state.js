// The console's state: who is signed in, and the polling of the view on screen. No DOM, so that
// node's tests can import it (tests/js/console_state.test.mjs).

/** `session`: {workspace, scopes} while signed in, else null (never the key: the session is an
 * HttpOnly cookie, api.js). `timers`: the current view's polling, cleared when the view changes. */
export const state = { session: null, timers: [] };

/** Signs in as `who` (the answer of GET …/auth/verify) says the session's key is. */
export function signIn(who) {
  state.session = { workspace: who.workspace, scopes: who.key.scopes };
  return state.session;
}

export function signOutOfState() {
  state.session = null;
}

/** Whether the signed-in key has `scope`. */
export const can = (scope) => !!state.session && state.session.scopes.includes(scope);

/** Runs `fn` after `ms` unless the view changes first; the timer, to clear it sooner. */
export function later(fn, ms) {
  const timer = setTimeout(fn, ms);
  state.timers.push(timer);
  return timer;
}

/** How long a view waits before reading what it polls again, after `failures` failed readings in
 * a row: 1 s, doubled for each failure, at most 15 s. */
export const pollDelay = (failures) => Math.min(1000 * 2 ** Math.max(0, failures), 15000);

/** Stops the polling of the view that is left. */
export function clearTimers() {
  state.timers.forEach(clearTimeout);
  state.timers = [];
}
