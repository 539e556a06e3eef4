'use strict';
/**
 * Mocha root hooks for the unit suite (test/.mocharc.json requires this file): MindsDB's SQL
 * parser, which the stand-in server and the quoting tests use, is installed (first run only, a few
 * seconds from PyPI) and started once before any test, under a timeout of its own, instead of inside
 * whichever test happens to be first.
 */
const sqlParser = require('./mindsdb-sql-parser');

exports.mochaHooks = {
  async beforeAll() {
    this.timeout(300_000);
    for (const version of sqlParser.versions()) {
      sqlParser.ensureVenv(version);
      const r = await sqlParser.parse('SELECT 1', version);
      if (!r.ok) throw new Error(`mindsdb_sql_parser ${version} refused SELECT 1: ${r.error}`);
    }
  },
};
