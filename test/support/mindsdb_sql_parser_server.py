"""MindsDB's own SQL parser as a long-lived helper for the tests: JSON lines over stdin/stdout.

Started by test/support/mindsdb-sql-parser.js with the python of a venv that holds exactly the
mindsdb_sql_parser version a pinned MindsDB uses (ci/mindsdb/constraints-*.txt). One request per
line, one answer per line, in order:

  {"id": 1, "op": "parse", "sql": "..."}   -> {"id": 1, "ok": true, "ast": {...}}
                                             {"id": 1, "ok": false, "error": "...", "type": "ParsingException"}
                                             (a LexError also carries "index", where the lexer stopped)
  {"id": 2, "op": "tokens", "sql": "..."}  -> {"id": 2, "ok": true, "tokens": [[type, value, index], ...]}
  {"id": 3, "op": "version"}               -> {"id": 3, "ok": true, "version": "0.13.8"}
  {"id": 4, "op": "keywords"}              -> {"id": 4, "ok": true, "keywords": ["agent", "all", ...]}
                                             (every lower-case word the lexer reads as one token that is no name)

`ast` is the parsed statement as plain JSON: every AST node becomes {"node": ClassName, field: value, ...}
with its public attributes, so a test can compare the literal values and identifier parts that
MindsDB read with the values it meant to send. Test code only.
"""
import json
import re
import sys

from mindsdb_sql_parser import parse_sql
from mindsdb_sql_parser.__about__ import __version__
from mindsdb_sql_parser.lexer import MindsDBLexer


def plain(value, depth=0):
    if depth > 200:
        return {"repr": "…too deep"}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else {"repr": repr(value)}
    if isinstance(value, (list, tuple)):
        return [plain(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v, depth + 1) for k, v in value.items()}
    if hasattr(value, "__dict__"):
        out = {"node": type(value).__name__}
        for key, item in vars(value).items():
            if not key.startswith("_"):
                out[key] = plain(item, depth + 1)
        return out
    return {"repr": repr(value)}


def keywords():
    """Each word a token of the lexer names or spells, kept where the lexer reads it alone as that one token."""
    candidates = set()
    for name in list(MindsDBLexer.tokens) + [n for n in vars(MindsDBLexer) if n.isupper()]:
        candidates.add(name.lower())
        pattern = getattr(MindsDBLexer, name, None)
        if isinstance(pattern, str):
            candidates.update(word.lower() for word in re.findall(r"[A-Za-z_]+", pattern))
    found = []
    for word in sorted(candidates):
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", word):
            continue
        tokens = list(MindsDBLexer().tokenize(word))
        if len(tokens) == 1 and tokens[0].type != "ID":
            found.append(word)
    return found


def answer(request):
    op = request.get("op")
    if op == "version":
        return {"ok": True, "version": __version__}
    if op == "keywords":
        return {"ok": True, "keywords": keywords()}
    sql = request.get("sql")
    if not isinstance(sql, str):
        return {"ok": False, "error": "sql must be a string", "type": "BadRequest"}
    try:
        if op == "parse":
            return {"ok": True, "ast": plain(parse_sql(sql))}
        if op == "tokens":
            return {"ok": True, "tokens": [[t.type, t.value, t.index] for t in MindsDBLexer().tokenize(sql)]}
        return {"ok": False, "error": f"unknown op {op!r}", "type": "BadRequest"}
    except Exception as err:  # what MindsDB's executor would turn into an SQL error answer
        reply = {"ok": False, "error": str(err), "type": type(err).__name__}
        if isinstance(getattr(err, "error_index", None), int):
            reply["index"] = err.error_index  # LexError: where the lexer stopped (in code points)
        return reply


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        reply = answer(request)
        reply["id"] = request.get("id")
        # ensure_ascii keeps lone surrogates and NUL as \u escapes, the same JSON JavaScript writes
        sys.stdout.write(json.dumps(reply, ensure_ascii=True) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
