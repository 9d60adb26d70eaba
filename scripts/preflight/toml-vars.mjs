// @ts-check
// wrangler.toml's vars: just enough TOML to find every key under a vars table, in each way TOML
// can write one ([vars], [env.x.vars], `vars = { … }`, `vars.NAME = …`, `[env.x]` + `vars = { … }`).
// Values are skipped, never kept: the preflight must not be able to print one. Anything it
// cannot read is an error (the preflight then fails) rather than a silently skipped line.

/**
 * @typedef {{ table: string, name: string, env: string | undefined, line: number }} VarEntry
 * `table` as written in messages: "[vars]" or "[env.staging.vars]".
 */

/**
 * Every variable defined in wrangler.toml's vars tables, in file order.
 * @param {string} text wrangler.toml's contents
 * @returns {VarEntry[]}
 * @throws {Error} when the text is not TOML this parser can read ("line N: …")
 */
export function parseVars(text) {
  /** @type {VarEntry[]} */
  const vars = [];
  const seen = new Set();
  for (const { path, line } of tomlKeys(text)) {
    let entry;
    if (path.length >= 2 && path[0] === "vars") entry = { table: "[vars]", name: path[1], env: undefined, line };
    else if (path.length >= 4 && path[0] === "env" && path[2] === "vars") entry = { table: `[env.${tomlKey(path[1])}.vars]`, name: path[3], env: path[1], line };
    if (entry === undefined || entry.name === undefined) continue;
    const id = `${entry.table}\n${entry.name}`;
    if (seen.has(id)) continue;
    seen.add(id);
    vars.push(/** @type {VarEntry} */ (entry));
  }
  return vars;
}

/** @param {string | undefined} key a key as TOML would write it in a header */
function tomlKey(key = "") {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
}

/**
 * The full path of every key the document defines (table headers give the prefix; keys inside
 * inline tables are listed too, keys inside arrays are not), with the line each starts on.
 * @param {string} text
 * @returns {{ path: string[], line: number }[]}
 */
function tomlKeys(text) {
  /** @type {{ path: string[], line: number }[]} */
  const keys = [];
  let pos = 0;
  const lineAt = (/** @type {number} */ at) => text.slice(0, at).split("\n").length;
  const fail = (/** @type {string} */ what) => {
    throw new Error(`line ${lineAt(pos)}: ${what}`);
  };
  const peek = (n = 1) => text.slice(pos, pos + n);
  const skipSpaces = () => {
    while (pos < text.length && (text[pos] === " " || text[pos] === "\t")) pos++;
  };
  const skipComment = () => {
    if (text[pos] === "#") while (pos < text.length && text[pos] !== "\n") pos++;
  };
  // Spaces, comments and line breaks: between top-level items, and inside arrays.
  const skipBlank = () => {
    for (;;) {
      skipSpaces();
      skipComment();
      if (text[pos] === "\n" || text[pos] === "\r") pos++;
      else return;
    }
  };
  const endOfLine = () => {
    skipSpaces();
    skipComment();
    if (peek(2) === "\r\n") pos += 2;
    else if (pos < text.length && text[pos] === "\n") pos++;
    else if (pos < text.length) fail(`unexpected ${JSON.stringify(text[pos])}`);
  };

  /** A one-line string (key or value); returns its text. */
  const basicString = () => {
    pos++; // the opening quote
    let value = "";
    while (pos < text.length && text[pos] !== '"') {
      if (text[pos] === "\n") fail("unterminated string");
      if (text[pos] === "\\") {
        const escaped = text[pos + 1] ?? "";
        const simple = /** @type {Record<string, string>} */ ({ b: "\b", t: "\t", n: "\n", f: "\f", r: "\r", '"': '"', "\\": "\\" })[escaped];
        if (simple !== undefined) {
          value += simple;
          pos += 2;
        } else if (escaped === "u" || escaped === "U") {
          const digits = escaped === "u" ? 4 : 8;
          const hex = text.slice(pos + 2, pos + 2 + digits);
          if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== digits) fail("bad unicode escape");
          value += String.fromCodePoint(parseInt(hex, 16));
          pos += 2 + digits;
        } else fail("bad escape");
      } else value += text[pos++];
    }
    if (pos >= text.length) fail("unterminated string");
    pos++;
    return value;
  };
  const literalString = () => {
    const end = text.indexOf("'", pos + 1);
    const newline = text.indexOf("\n", pos + 1);
    if (end < 0 || (newline >= 0 && newline < end)) fail("unterminated string");
    const value = text.slice(pos + 1, end);
    pos = end + 1;
    return value;
  };
  const multilineString = (/** @type {string} */ quotes) => {
    pos += 3;
    for (;;) {
      if (pos >= text.length) fail("unterminated multi-line string");
      if (quotes === '"""' && text[pos] === "\\") pos += 2;
      else if (peek(3) === quotes) break;
      else pos++;
    }
    pos += 3;
    // Up to two quotes right before the closing three belong to the string.
    for (let extra = 0; extra < 2 && text[pos] === quotes[0]; extra++) pos++;
  };

  const simpleKey = () => {
    if (text[pos] === '"') return basicString();
    if (text[pos] === "'") return literalString();
    const bare = /^[A-Za-z0-9_-]+/.exec(text.slice(pos, pos + 256));
    if (bare === null) fail("expected a key");
    pos += /** @type {RegExpExecArray} */ (bare)[0].length;
    return /** @type {RegExpExecArray} */ (bare)[0];
  };
  /** A dotted key: a.b."c d". */
  const key = () => {
    const parts = [simpleKey()];
    for (;;) {
      skipSpaces();
      if (text[pos] !== ".") return parts;
      pos++;
      skipSpaces();
      parts.push(simpleKey());
    }
  };

  /**
   * Skips one value; the keys of an inline table are recorded under `prefix` (null inside arrays,
   * whose tables are not the Worker's vars).
   * @param {string[] | null} prefix
   */
  const value = (prefix) => {
    if (peek(3) === '"""' || peek(3) === "'''") return multilineString(peek(3));
    if (text[pos] === '"') return void basicString();
    if (text[pos] === "'") return void literalString();
    if (text[pos] === "[") {
      pos++;
      for (;;) {
        skipBlank();
        if (text[pos] === "]") break;
        value(null);
        skipBlank();
        if (text[pos] === ",") pos++;
        else if (text[pos] !== "]") fail("expected , or ] in an array");
      }
      pos++;
      return;
    }
    if (text[pos] === "{") {
      pos++;
      for (;;) {
        skipBlank();
        if (text[pos] === "}") break;
        keyValue(prefix);
        skipBlank();
        if (text[pos] === ",") pos++;
        else if (text[pos] !== "}") fail("expected , or } in an inline table");
      }
      pos++;
      return;
    }
    // Numbers, booleans, dates (a date may hold a space): up to a delimiter.
    const scalar = /^[^,\]}#\r\n]*/.exec(text.slice(pos))?.[0] ?? "";
    if (scalar.trim() === "") fail("expected a value");
    pos += scalar.trimEnd().length;
  };
  /** @param {string[] | null} prefix */
  const keyValue = (prefix) => {
    const start = pos;
    const path = key();
    skipSpaces();
    if (text[pos] !== "=") fail("expected =");
    pos++;
    skipSpaces();
    const full = prefix === null ? null : [...prefix, ...path];
    if (full !== null) keys.push({ path: full, line: lineAt(start) });
    value(full);
  };

  /** @type {string[]} */
  let table = [];
  for (;;) {
    skipBlank();
    if (pos >= text.length) return keys;
    if (text[pos] === "[") {
      const array = peek(2) === "[[";
      pos += array ? 2 : 1;
      skipSpaces();
      table = key();
      skipSpaces();
      if (peek(array ? 2 : 1) !== (array ? "]]" : "]")) fail("expected ] after a table name");
      pos += array ? 2 : 1;
    } else keyValue(table);
    endOfLine();
  }
}
