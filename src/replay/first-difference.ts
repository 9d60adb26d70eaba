// The path of the first field where two JSON values differ ("messages.3.content.0.text"), or
// undefined when they are the same. Object keys are compared in sorted order.
export function firstDifference(a: unknown, b: unknown, path = ""): string | undefined {
  const here = path === "" ? "(the whole value)" : path;
  if (a === b) return undefined;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return here;
  if (Array.isArray(a) !== Array.isArray(b)) return here;
  const join = (key: string | number) => (path === "" ? String(key) : `${path}.${key}`);
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i >= a.length || i >= b.length) return join(i);
      const found = firstDifference(a[i], b[i], join(i));
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])].filter((key) => left[key] !== undefined || right[key] !== undefined).sort();
  for (const key of keys) {
    const found = firstDifference(left[key], right[key], join(key));
    if (found !== undefined) return found;
  }
  return undefined;
}
