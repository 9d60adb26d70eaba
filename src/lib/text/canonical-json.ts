// JSON with object keys sorted at every depth, so equal inputs give equal strings
// whatever order the model wrote their keys in.
import { Recent } from "../recent";

export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? "null";
}

const isPlain = (value: object) => {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
};

/**
 * `value` with its object keys sorted at every depth. Where they are sorted already (most of what
 * a model writes: one key, or a few in order) and the object is plain (no prototype of its own,
 * so no toJSON of one), the value itself: its JSON is the sorted copy's, and nothing is copied.
 */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const sorted = sortKeys(item);
      if (copy === undefined) {
        if (sorted === item) continue;
        copy = value.slice(0, i);
      }
      copy[i] = sorted;
    }
    return copy ?? value;
  }
  if (value === null || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let inOrder = isPlain(record);
  for (let i = 1; inOrder && i < keys.length; i++) if (keys[i - 1]! > keys[i]!) inOrder = false;
  // Each child sorted once; its sorted form kept only from the first that changed on.
  let children: unknown[] | undefined;
  for (let i = 0; i < keys.length; i++) {
    const item = record[keys[i]!];
    const sorted = sortKeys(item);
    if (children === undefined) {
      if (sorted === item) continue;
      children = keys.slice(0, i).map((key) => record[key]);
    }
    children.push(sorted);
  }
  if (children === undefined && inOrder) return value;
  const order = keys.map((_key, i) => i).sort((a, b) => (keys[a]! < keys[b]! ? -1 : 1));
  const copy: Record<string, unknown> = {};
  for (const i of order) copy[keys[i]!] = children === undefined ? record[keys[i]!] : children[i];
  return copy;
}

/** An object's JSON texts made so far: canonical, and as JSON.stringify writes it (the same text when its keys are sorted already). */
type Texts = { canonical?: string; plain?: string };
const made = new Recent<object, Texts>();

const textsOf = (value: object): Texts => made.get(value) ?? made.set(value, {});

/**
 * canonicalJson(value), made once for the newest few objects (recent.ts): a tool call's input is
 * read by the loop detectors and the repeated-call guard (its fingerprint) and by every guardrail
 * check (plainJsonOf). Only for values nobody changes once made (a model's tool call).
 */
export function canonicalJsonOf(value: unknown): string {
  if (value === null || typeof value !== "object") return canonicalJson(value);
  const texts = textsOf(value);
  if (texts.canonical === undefined) {
    const sorted = sortKeys(value);
    texts.canonical = JSON.stringify(sorted) ?? "null";
    // Nothing was out of order: the canonical text is the plain one too.
    if (sorted === value) texts.plain = texts.canonical;
  }
  return texts.canonical;
}

/** JSON.stringify(value ?? null), made once per object (as canonicalJsonOf, whose text it shares when the keys were in order). */
export function plainJsonOf(value: unknown): string {
  if (value === null || value === undefined || typeof value !== "object") return JSON.stringify(value ?? null);
  const texts = textsOf(value);
  texts.plain ??= JSON.stringify(value);
  return texts.plain;
}
