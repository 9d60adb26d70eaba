// Canonical JSON (src/lib/text/canonical-json.ts): keys sorted at every depth, whatever order they came
// in; the value itself serialised when its keys are in order already (no copy), and its text the
// same as the sorted copy's would be; the texts of a tool call's input made once and shared.
import { describe, expect, it } from "vitest";
import { canonicalJson, canonicalJsonOf, plainJsonOf } from "../../src/lib/text/canonical-json";

/** The definition: every object copied with its keys sorted, then serialised. */
function sortedCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedCopy);
  if (value === null || typeof value !== "object") return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortedCopy((value as Record<string, unknown>)[key]);
  return sorted;
}

const CASES: unknown[] = [
  { q: "x", page: 1 },
  { page: 1, q: "x" },
  { a: { d: [1, { z: 1, y: 2 }], c: null }, b: "s" },
  { "10": 1, "9": 2, b: 3 },
  [{ b: 1, a: 2 }, 3, "x", [{ d: 1, c: 2 }]],
  { nested: { deep: { deeper: { b: 1, a: 1 } } }, first: true },
  { when: new Date(0), list: [undefined, 1] },
  Object.assign(Object.create(null) as object, { b: 1, a: 2 }),
  "text",
  42,
  null,
  undefined,
];

describe("canonicalJson", () => {
  it("is the sorted copy's JSON, for objects in order and out of it, nested, with arrays, dates and no prototype", () => {
    for (const value of CASES) expect(canonicalJson(value)).toBe(JSON.stringify(sortedCopy(value)) ?? "null");
  });

  it("gives one text for the same input whatever its key order", () => {
    expect(canonicalJson({ q: "x", page: 1 })).toBe(canonicalJson({ page: 1, q: "x" }));
    expect(canonicalJson({ a: [{ y: 1, x: 2 }] })).toBe('{"a":[{"x":2,"y":1}]}');
  });
});

describe("canonicalJsonOf and plainJsonOf", () => {
  it("are canonicalJson and JSON.stringify (null for nothing), whichever is asked first", () => {
    for (const value of CASES) {
      expect(canonicalJsonOf(value)).toBe(canonicalJson(value));
      expect(plainJsonOf(value)).toBe(JSON.stringify(value ?? null));
    }
    for (const value of CASES.map((value) => (value !== null && typeof value === "object" ? structuredClone(value) : value))) {
      expect(plainJsonOf(value)).toBe(JSON.stringify(value ?? null));
      expect(canonicalJsonOf(value)).toBe(canonicalJson(value));
    }
  });

  it("keep the plain text apart from the canonical one when the keys were out of order", () => {
    const input = { q: "x", page: 1 };
    expect(canonicalJsonOf(input)).toBe('{"page":1,"q":"x"}');
    expect(plainJsonOf(input)).toBe('{"q":"x","page":1}');
  });
});
