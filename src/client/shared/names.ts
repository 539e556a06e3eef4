import { MindsDBError } from './errors';

/**
 * The one rule for finding a name the way MindsDB stored it. What MindsDB does to the case of a
 * name differs by resource, version and quoting (docs/real-mindsdb.md, "Names and capitals"): an
 * unquoted `CREATE MODEL MyModel` is stored as `mymodel`, a file uploaded as `SensorLog` is
 * stored as `sensorlog`, a backticked or REST-made name keeps its case, and most lookups then
 * compare exactly. So a name the user typed is looked for exactly as typed first, then as the one
 * spelling the server lists that differs from it only in case; never a guess between two.
 */
export type NameMatch =
  | { found: 'exact'; name: string }
  | { found: 'case'; name: string }
  | { found: 'none' }
  | { found: 'ambiguous'; names: string[] };

/** How two names compare when case is ignored (as MindsDB's own lower-casing does). */
export function foldCase(name: string): string {
  return name.toLowerCase();
}

/** Finds `typed` among the names the server lists (as stored). */
export function matchName(typed: string, stored: Iterable<string>): NameMatch {
  const variants = new Set<string>();
  const folded = foldCase(typed);
  for (const name of stored) {
    if (name === typed) return { found: 'exact', name };
    if (foldCase(name) === folded) variants.add(name);
  }
  if (variants.size === 0) return { found: 'none' };
  const names = [...variants].sort();
  return names.length === 1 ? { found: 'case', name: names[0] } : { found: 'ambiguous', names };
}

/** "no model `MyModel` in project `mindsdb`; MindsDB has `mymodel`" and its variants. */
export function storedNameText(
  what: string,
  typed: string,
  within: string | undefined,
  names: readonly string[],
  why?: string,
): string {
  const has = names.map((n) => `\`${n}\``);
  const list = has.length <= 1 ? has.join('') : `${has.slice(0, -1).join(', ')} and ${has[has.length - 1]}`;
  const where = within ? ` in ${within}` : '';
  return `no ${what} \`${typed}\`${where}; MindsDB has ${list}${why ? `, ${why}` : ''}`;
}

/**
 * The error for a name that only differs in case from two or more stored names: picking one
 * could change the wrong thing, so the user must write it as stored.
 */
export function ambiguousNameError(
  what: string,
  typed: string,
  within: string | undefined,
  names: readonly string[],
): MindsDBError {
  return new MindsDBError(
    storedNameText(
      what,
      typed,
      within,
      names,
      'which differ from it only in case: write the name exactly as one of them',
    ),
    { kind: 'input' },
  );
}
