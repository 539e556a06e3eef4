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

// Empty: the four defects found while issue 21 was under way are fixed and held by
// test/unit/found-defects.test.js. A new one goes here with its reproduction in known-defects.test.js.
const KNOWN_DEFECTS = [];

const active = STRICT ? [] : KNOWN_DEFECTS;

module.exports = {
  KNOWN_DEFECTS,
  /** The known defect an outcome-invariant cell shows, if any. */
  matrixDefect: (label, fault) => active.find((d) => d.matrix?.(label, fault)),
  /** The known defect a fuzz message's problem is, if any. */
  messageDefect: (nodeCase, msg, problem) => active.find((d) => d.message?.(nodeCase, msg, problem)),
  /** Unhandled rejections and uncaught exceptions that are not known defects. */
  unknownProcessProblems: (problems) => problems.filter((err) => !active.some((d) => d.processProblem?.(err))),
  /** Faults the fuzz leaves out for this node while a known defect makes them hang. */
  faultsToSkip: (nodeCase) => active.flatMap((d) => (d.fuzzFaults ? d.fuzzFaults(nodeCase) : [])),
};
