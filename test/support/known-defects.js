'use strict';
/**
 * Defects in src/ that the stricter suites found and that belong to another piece of work (issue
 * 21: the exchange policy and tick handling are being rebuilt in src/client and src/runtime).
 * Each entry is reproduced, deterministically, by test/unit/known-defects.test.js, which FAILS
 * once the defect is gone: then delete the entry here, and the broad suites below check that case
 * strictly again.
 *
 * The broad suites (outcome invariant, fuzz) consult this table so that one known defect does
 * not hide every other finding:
 *  - `matrix` (node case label, fault name) pairs of test/unit/outcome-invariant.test.js are run
 *    expecting the defect: they pass only while it still shows (its `signature`), and fail with
 *    "fixed" when it is gone;
 *  - `message(nodeCase, msg, problem)` says whether a message's problem in the fuzz is this defect;
 *  - `processProblem(err)` says whether an unhandled rejection is this defect;
 *  - `fuzzFaults(nodeCase)` lists the faults the fuzz cannot inject for that node without hanging.
 * KNOWN_DEFECTS=strict turns all tolerance off: every suite then fails on every defect below.
 */
const STRICT = process.env.KNOWN_DEFECTS === 'strict';

const isSplitSql = (nodeCase) => nodeCase.type === 'mindsdb-sql' && nodeCase.def.split === true;

const KNOWN_DEFECTS = [
  {
    id: 'error-body-stall',
    issue: 'issue 21 #1',
    owner: 'src/client (exchange policy): a streamed answer whose error body stalls',
    what: 'sql node with split on: a server that answers an error status and stalls in the error body; the message never ends (no output, no error) and its connection slot is never released',
    matrix: (label, fault) => /^mindsdb-sql \(split/.test(label) && fault === 'stall in an error body',
    signature: /waited \d+ ms for every message to end/,
    fuzzFaults: (nodeCase) => (isSplitSql(nodeCase) ? ['stall in an error body'] : []),
  },
  {
    id: 'tick-vanishes',
    issue: 'issue 21 #4',
    owner: 'src/mindsdb-sql.ts (tick handling)',
    what: 'a msg with a truthy msg.tick sent to a sql node whose flow control is off ends with done() and no output, no error, no warning',
    message: (nodeCase, msg, problem) => nodeCase.type === 'mindsdb-sql' && !nodeCase.ticks && Boolean(msg && msg.tick)
      && /0 output\(s\), 0 part\(s\), done\(\) ×1, error ×0: done\(\) needs exactly one output/.test(problem),
  },
  {
    id: 'login-unhandled-rejection',
    issue: 'found by the fuzz under faults (not in issue 21)',
    owner: 'src/client/connection/client.ts execute(): the promise of auth.current() is dropped when a login is needed',
    what: 'in login mode, a login that fails (wrong password, HTTP 5xx, a timeout of the login or of its /status probe, a dropped connection, a 200 without cookie or token) rejects a promise nobody handles: an unhandled rejection, which makes a real Node-RED exit (its uncaughtException handler calls process.exit(1))',
    // the login, or the /status probe it starts with (is authentication on?)
    processProblem: (err) => Boolean(err) && err.name === 'MindsDBError' && /(^|\/)(login|status)$/.test(String(err.path)),
  },
  {
    id: 'login-5xx-blames-password',
    issue: 'found by the fuzz under faults (not in issue 21)',
    owner: 'src/client/exchange/auth.ts doLogin() and loginFailureText()',
    what: 'a login answered by HTTP 502/503/429 (a proxy, an overloaded server) fails at once with kind "auth" and the text "the server rejected the username or password", with no retry, although the password was never checked',
  },
];

const active = STRICT ? [] : KNOWN_DEFECTS;

module.exports = {
  KNOWN_DEFECTS,
  /** The known defect an outcome-invariant cell shows, if any. */
  matrixDefect: (label, fault) => active.find((d) => d.matrix && d.matrix(label, fault)),
  /** The known defect a fuzz message's problem is, if any. */
  messageDefect: (nodeCase, msg, problem) => active.find((d) => d.message && d.message(nodeCase, msg, problem)),
  /** Unhandled rejections and uncaught exceptions that are not known defects. */
  unknownProcessProblems: (problems) => problems.filter((err) => !active.some((d) => d.processProblem && d.processProblem(err))),
  /** Faults the fuzz leaves out for this node while a known defect makes them hang. */
  faultsToSkip: (nodeCase) => active.flatMap((d) => (d.fuzzFaults ? d.fuzzFaults(nodeCase) : [])),
};
