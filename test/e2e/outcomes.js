'use strict';
/**
 * What both e2e files need from a loaded flow (n1 under test, `out` for outputs, `caught` for
 * Catch): send a message and get its one outcome, and skip a case with its reason printed.
 */
const assert = require('node:assert/strict');
const { helper } = require('../support/nr');

/** Sends msg into node `id`; resolves with {out} or {error} (the message that reached Catch). */
function send(msg, id = 'n1') {
  return new Promise((resolve) => {
    const onOut = (m) => { cleanup(); resolve({ out: m }); };
    const onErr = (m) => { cleanup(); resolve({ error: m }); };
    const cleanup = () => { helper.getNode('out').removeListener('input', onOut); helper.getNode('caught').removeListener('input', onErr); };
    helper.getNode('out').on('input', onOut);
    helper.getNode('caught').on('input', onErr);
    helper.getNode(id).receive(msg);
  });
}
async function ok(msg, id) { const r = await send(msg, id); assert.ok(r.out, `expected an output, got error: ${r.error && r.error.error.message}`); return r.out; }
async function fails(msg, id) { const r = await send(msg, id); assert.ok(r.error, `expected an error, got output: ${JSON.stringify(r.out && r.out.payload)}`); return r.error; }

/** Skips the running case, saying why (mocha's own output does not show a reason). */
function skipBecause(ctx, version, reason) {
  console.log(`      - skipped on MindsDB ${version}: ${reason}`);
  ctx.skip();
}

module.exports = { send, ok, fails, skipBecause };
