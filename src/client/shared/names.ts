import { MindsDBError } from './errors';

/**
 * The one rule for finding a name the way MindsDB stored it (`matchName`, with `foldCase`) is the
 * client's and the editor's alike, in src/common/sql-names.ts; here are the errors that name it.
 */
export { foldCase, matchName, type NameMatch } from '../../common/sql-names';

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
