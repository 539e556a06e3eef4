import { rowsToObjects, type SqlAnswer } from '../../client';

/**
 * An SQL answer as a message carries it: msg.mindsdb (its type, columns, the server's context, the
 * rows an "ok" statement changed, and with rows as arrays the raw rows) and the rows at the node's
 * Output property, as objects or as arrays.
 */

/** msg.mindsdb of a whole answer. */
export function answerMeta(answer: SqlAnswer, asArrays: boolean): Record<string, unknown> {
  const meta: Record<string, unknown> = { type: answer.type, columns: answer.column_names, context: answer.context };
  if (answer.type === 'ok') meta.affectedRows = answer.affected_rows ?? null;
  if (asArrays) meta.data = answer.data;
  return meta;
}

/** The rows of a whole answer, as the node sends them. */
export function answerRows(answer: SqlAnswer, asArrays: boolean): unknown[] {
  return asArrays ? answer.data : rowsToObjects(answer.column_names, answer.data);
}

/** msg.mindsdb of a streamed statement without rows, from the fields its answer began with. */
export function okMeta(fields: Record<string, unknown>, asArrays: boolean): Record<string, unknown> {
  return {
    type: 'ok',
    columns: [],
    context: fields.context,
    affectedRows: (fields.affected_rows as number | null | undefined) ?? null,
    ...(asArrays ? { data: [] } : {}),
  };
}
