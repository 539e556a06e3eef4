#!/usr/bin/env node
// `npm run scorecard`: the Flow Library's package checks, offline. The scorecard tool is a separate
// developer tool, not part of this repository, so a clone alone has no copy of it: SCORECARD_TOOL
// names its path (for example a checkout's tools/scorecard.mjs). Without it, say so plainly and
// fail, since no check ran.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tool = process.env.SCORECARD_TOOL;
if (!tool || !fs.existsSync(tool)) {
  console.error(
    tool
      ? `scorecard: SCORECARD_TOOL=${tool} does not exist.`
      : 'scorecard: the Flow Library scorecard tool is not part of this repository; set SCORECARD_TOOL to its path (SCORECARD_TOOL=/path/to/scorecard.mjs npm run scorecard).',
  );
  process.exit(2);
}
const r = spawnSync(process.execPath, [path.resolve(tool), root, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
