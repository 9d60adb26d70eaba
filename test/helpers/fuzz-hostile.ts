// Arbitraries of hostile input: values of the wrong type, huge strings, deep nesting, unicode edge
// cases, invalid base64 images, and valid bodies with one of those put at a random path.
import fc from "fast-check";

/** Strings that have broken parsers, encoders and databases before. */
export const EDGE_STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800", // lone high surrogate
  "\udfff", // lone low surrogate
  "\udfff\ud800", // surrogates in the wrong order
  "\ud83d\ude00", // an emoji (a valid pair)
  "\u202e\u202d", // bidi overrides
  "\ufeff", // BOM
  "\uffff\ufffe",
  "e\u0301\u0301\u0301", // combining marks
  "\u{10ffff}",
  "\r\n\t\v\f",
  "\u2028\u2029",
  "𝕏".repeat(64),
  "__proto__",
  "constructor",
  "toString",
  "../../../../etc/passwd",
  "%00%ff%zz",
  "<script>alert(1)</script>",
  "'; DROP TABLE run; --",
  "${process.env}",
  "run_" + "a".repeat(26),
  "rt_" + "A".repeat(43),
  "1e309",
  "-0",
  "NaN",
];

const unicodeString = fc.string({ unit: "binary", maxLength: 40 });

/** Nested arrays or objects, `depth` levels (kept below the depth at which the edge is known to fail: see "deep nesting" in endpoints.test.ts). */
export const deepValue = (maxDepth: number) =>
  fc.tuple(fc.integer({ min: 20, max: maxDepth }), fc.boolean()).map(([depth, arrays]) => {
    let value: unknown = 0;
    for (let i = 0; i < depth; i++) value = arrays ? [value] : { a: value };
    return value;
  });

/** A huge string: 64 KiB up to a little over the 1 MiB body limit. */
export const hugeString = fc.integer({ min: 64 * 1024, max: 1024 * 1024 + 64 * 1024 }).chain((length) =>
  fc.constantFrom("x", "é", "\ud83d\ude00", "\u0000").map((unit) => unit.repeat(Math.ceil(length / unit.length))),
);

/** Image parts that must be refused: data that is not base64, empty, a hash that does not match, odd mime types. */
export const badImagePart = fc.oneof(
  fc.record({ type: fc.constant("image"), mimeType: fc.constant("image/png"), data: fc.oneof(fc.constantFrom("not base64!", "%%", "a", "abcde", "====", "ab=c", " aGk=", "aGk=\n", "data:image/png;base64,aGk=", "\u00e9\u00e9\u00e9\u00e9"), unicodeString.filter((s) => !/^[A-Za-z0-9+/]*=*$/.test(s))) }),
  fc.record({ type: fc.constant("image"), mimeType: fc.constant("image/png"), data: fc.constant("") }),
  fc.record({ type: fc.constant("image"), mimeType: fc.constant("image/png"), data: fc.base64String({ minLength: 4, maxLength: 64 }), hash: fc.stringMatching(/^[0-9a-f]{64}$/) }),
  fc.record({ type: fc.constant("image"), mimeType: fc.oneof(fc.constantFrom(...EDGE_STRINGS), unicodeString), data: fc.oneof(fc.constant(""), fc.string()) }),
  fc.record({ type: fc.constant("image"), mimeType: fc.constant("") }),
  fc.record({ type: fc.constant("image") }),
);

/** Image parts the service takes: valid base64 with any mime type and path (they are stored). */
export const oddValidImagePart = fc.record({
  type: fc.constant("image"),
  mimeType: fc.oneof(fc.constantFrom("image/png", "image/jpeg", "text/html", "application/octet-stream", "image/png\r\nX-Evil: 1", "\u00e9/\u00e9"), unicodeString.filter((s) => s.length > 0)),
  data: fc.base64String({ minLength: 4, maxLength: 200 }).filter((s) => s.replace(/=+$/, "").length > 0),
  path: fc.option(fc.oneof(fc.constantFrom(...EDGE_STRINGS), unicodeString), { nil: undefined }),
});

/** A value of any JSON type, or one of the hostile ones. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, 2 ** 53 + 2, -1e308, 1e308, [], {}, [null], { "": null }), weight: 4 },
  { arbitrary: fc.constantFrom(...EDGE_STRINGS), weight: 4 },
  { arbitrary: unicodeString, weight: 3 },
  { arbitrary: fc.jsonValue({ maxDepth: 3, stringUnit: "binary" }), weight: 4 },
  { arbitrary: deepValue(1000), weight: 1 },
  { arbitrary: hugeString, weight: 1 },
  { arbitrary: fc.array(badImagePart, { minLength: 1, maxLength: 3 }), weight: 2 },
  { arbitrary: oddValidImagePart.map((part) => [part]), weight: 1 },
  { arbitrary: fc.double().map((d) => d), weight: 1 },
);

type Path = (string | number)[];

/** Every path into a JSON value (objects and arrays), the root included. */
export function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const out: Path[] = [prefix];
  if (Array.isArray(value)) value.forEach((item, i) => out.push(...pathsOf(item, [...prefix, i])));
  else if (value !== null && typeof value === "object") for (const [key, item] of Object.entries(value)) out.push(...pathsOf(item, [...prefix, key]));
  return out;
}

/** A copy of `value` with `replacement` at `path` (the root when the path is empty). */
export function setAt(value: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    copy[head as number] = setAt(copy[head as number], rest, replacement);
    return copy;
  }
  const copy = { ...(value as Record<string, unknown>) };
  // defineProperty, so that a key such as "__proto__" becomes an own key that JSON.stringify writes.
  Object.defineProperty(copy, head as string, { value: setAt(copy[head as string], rest, replacement), enumerable: true, writable: true, configurable: true });
  return copy;
}

/** `valid` with a hostile value at one of its paths, or under a new key beside it. */
export function mutated<T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.tuple(valid, fc.nat(), hostileValue, fc.oneof(fc.constant(undefined), fc.constantFrom("extra", "__proto__", "constructor", "", "\ud800"))).map(([body, pick, value, newKey]) => {
    const paths = pathsOf(body);
    const path = paths[pick % paths.length]!;
    if (newKey !== undefined && path.length > 0) return setAt(body, [...path.slice(0, -1), newKey], value);
    return setAt(body, path, value);
  });
}

/** Raw body texts: not JSON, truncated JSON, deep JSON text, BOMs, NULs, duplicate and prototype keys. */
export const rawBodyText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.json({ maxDepth: 4, stringUnit: "binary" }),
  fc.json({ maxDepth: 3 }).chain((text) => fc.nat({ max: Math.max(0, text.length - 1) }).map((cut) => text.slice(0, cut))),
  fc.integer({ min: 1000, max: 200_000 }).map((n) => "[".repeat(n) + "]".repeat(n)),
  fc.integer({ min: 1000, max: 100_000 }).map((n) => '{"a":'.repeat(n) + "1" + "}".repeat(n)),
  fc.integer({ min: 1000, max: 500_000 }).map((n) => "[".repeat(n)),
  fc.constantFrom(
    "",
    "null",
    "\ufeff{}",
    '{"messages":[{"role":"user","content":"hi"}]}\u0000',
    '{"__proto__":{"messages":[{"role":"user","content":"hi"}]}}',
    '{"messages":[{"role":"user","content":"hi"}],"messages":"twice"}',
    '{"messages":[{"role":"user","content":"\\ud800"}],"constructor":{"prototype":{"polluted":true}}}',
    "1e999999",
    '"' + "\\u0000".repeat(1000) + '"',
    "{'single': 'quotes'}",
    "NaN",
  ),
);

/** Headers a client could send, within what fetch lets a client set. */
export const headerValue = fc.string({ unit: "binary-ascii", maxLength: 80 }).map((s) => s.replace(/[\u0000-\u001f\u007f]/g, "").trim());
