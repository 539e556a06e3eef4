'use strict';
/**
 * Rows the test stand-in (./fake-mindsdb.js) answers a SELECT over by running the statement as
 * MindsDB's own parser read it (the AST of ./mindsdb-sql-parser.js): FROM a table or a
 * parenthesised sub-SELECT with an alias, WHERE with AND, OR, comparisons, IS [NOT] NULL and bound
 * :parameters, ORDER BY, LIMIT. A change to the SQL text the package writes that changes which
 * rows it selects, or their order, changes what the stand-in answers: the tests of incremental
 * mode rest on that, not on the parameters alone.
 *
 *   fake.state.sql = selectFrom({ 'pg.readings': rows }, ['ts', 'id', 'v']);
 */

/** The value of an expression for one row (an object keyed by column name), SQL's NULL as null. */
function value(node, row, params) {
  switch (node.node) {
    case 'Identifier': {
      const name = node.parts[node.parts.length - 1];
      if (!(name in row)) throw new Error(`Column "${name}" not found`);
      return row[name];
    }
    case 'Parameter':
      if (!(node.value in params)) throw new Error(`Parameter is not set: ${node.value}`);
      return params[node.value];
    case 'Constant':
      return node.value;
    case 'NullConstant':
      return null;
    case 'BinaryOperation': {
      const [a, b] = node.args.map((x) => value(x, row, params));
      switch (node.op) {
        case 'and':
          return a === null || b === null ? (a === false || b === false ? false : null) : Boolean(a && b);
        case 'or':
          return a === true || b === true ? true : a === null || b === null ? null : false;
        case 'is':
          return b === null ? a === null : a === b;
        case 'is not':
          return b === null ? a !== null : a !== b;
        default:
          if (a === null || b === null) return null;
          switch (node.op) {
            case '=':
              return a === b;
            case '<>':
            case '!=':
              return a !== b;
            case '>':
              return a > b;
            case '>=':
              return a >= b;
            case '<':
              return a < b;
            case '<=':
              return a <= b;
            default:
              throw new Error(`the stand-in does not evaluate ${node.op}`);
          }
      }
    }
    default:
      throw new Error(`the stand-in does not evaluate ${node.node}`);
  }
}

/** The rows a FROM item stands for. */
function source(from, tables, params) {
  if (from.node === 'Identifier') {
    const name = from.parts.join('.');
    if (!(name in tables)) throw new Error(`Table '${name}' not found`);
    return tables[name];
  }
  if (from.node === 'Select') return select(from, tables, params);
  throw new Error(`the stand-in does not read FROM ${from.node}`);
}

function compare(a, b) {
  if (a === b) return 0;
  if (a === null) return -1; // NULLs first, as DuckDB sorts them (PostgreSQL puts them last)
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

/** Runs a parsed SELECT: rows as objects. */
function select(ast, tables, params) {
  let rows = source(ast.from_table, tables, params).slice();
  if (ast.where) rows = rows.filter((r) => value(ast.where, r, params) === true);
  if (ast.order_by) {
    const keys = ast.order_by.map((o) => ({ field: o.field, desc: o.direction === 'DESC' }));
    rows.sort((x, y) => {
      for (const k of keys) {
        const c = compare(value(k.field, x, params), value(k.field, y, params));
        if (c !== 0) return k.desc ? -c : c;
      }
      return 0;
    });
  }
  if (ast.limit) rows = rows.slice(0, Number(ast.limit.value));
  if (!ast.targets.every((t) => t.node === 'Star')) {
    rows = rows.map((r) =>
      Object.fromEntries(
        ast.targets.map((t) => [t.alias ? t.alias.parts.at(-1) : t.parts.at(-1), value(t, r, params)]),
      ),
    );
  }
  return rows;
}

/**
 * A `fake.state.sql` hook: a SELECT whose innermost FROM is one of `tables` (name → array of row
 * objects, e.g. 'pg.readings') is answered from them, columns in `columns` order; anything else is
 * left to the stand-in. An error in the statement is MindsDB's SQL error answer.
 */
function selectFrom(tables, columns) {
  const innermost = (ast) =>
    ast.from_table && ast.from_table.node === 'Select' ? innermost(ast.from_table) : ast.from_table;
  return (body, ast) => {
    if (ast?.node !== 'Select' || !ast.from_table) return undefined;
    const from = innermost(ast);
    if (from?.node !== 'Identifier' || !(from.parts.join('.') in tables)) return undefined;
    try {
      const rows = select(ast, tables, body.params || {});
      return {
        type: 'table',
        column_names: columns,
        data: rows.map((r) => columns.map((c) => (c in r ? r[c] : null))),
      };
    } catch (err) {
      return { type: 'error', error_code: 0, error_message: err.message };
    }
  };
}

module.exports = { selectFrom };
