'use strict';
/**
 * Waiting in tests: always on an event or a condition, always with a deadline, never for a fixed
 * time. test/unit/no-fixed-sleeps.test.js fails when a test waits any other way; the timers
 * below are the only ones it allows outside fault handlers (see that test for the rules).
 */

/**
 * Resolves once `condition()` (sync or async) is truthy, with its value; checks every
 * `intervalMs`; rejects after `timeoutMs` with an error naming `what` (a string, or a function
 * that describes the state at the deadline, so a failure says what was missing).
 */
async function waitFor(condition, { timeoutMs = 5000, what = 'the condition', intervalMs = 5 } = {}) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() >= until) {
      const said = typeof what === 'function' ? what() : what;
      throw new Error(`waited ${timeoutMs} ms for ${said}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs)); // poll interval of waitFor, bounded by the deadline above
  }
}

/**
 * Asserts that `condition()` stays truthy for `forMs`: the window of a negative assertion
 * ("nothing more is written while nobody reads"), never a wait for something to happen.
 */
async function holdsFor(condition, { forMs, what = 'the condition', intervalMs = 5 }) {
  const until = Date.now() + forMs;
  for (;;) {
    if (!(await condition()))
      throw new Error(`${typeof what === 'function' ? what() : what} stopped holding within ${forMs} ms`);
    if (Date.now() >= until) return;
    await new Promise((r) => setTimeout(r, intervalMs)); // poll interval of holdsFor, bounded by forMs
  }
}

/** `promise`, or a rejection naming `what` if it has not settled within `timeoutMs`. */
function deadline(promise, timeoutMs, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`waited ${timeoutMs} ms for ${typeof what === 'function' ? what() : what}`)),
      timeoutMs,
    ); // deadline
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The next `event` from `emitter` (its first argument), within `timeoutMs`. */
function nextEvent(emitter, event, { timeoutMs = 5000, what = `the ${event} event` } = {}) {
  let listener;
  const p = new Promise((resolve) => {
    listener = resolve;
    emitter.once(event, listener);
  });
  return deadline(p, timeoutMs, what).finally(() => emitter.removeListener(event, listener));
}

/**
 * Lets everything already queued on the event loop run: Node-RED delivers every sent message
 * with setImmediate, so after this every message sent before the call has arrived. Not a sleep:
 * it waits for work already scheduled, not for time to pass.
 */
async function flushDeliveries(turns = 3) {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
}

module.exports = { waitFor, holdsFor, deadline, nextEvent, flushDeliveries };
