// Duplicate names found in one pass: a body may hold thousands of names, and a check that compares
// each with every other is quadratic work anyone can ask for with one request.

/** The indexes of the items equal to an earlier item, with the index of that first one; linear time. */
export function laterDuplicates<T>(items: readonly T[]): { index: number; first: number }[] {
  const firstAt = new Map<T, number>();
  const found: { index: number; first: number }[] = [];
  items.forEach((item, index) => {
    const first = firstAt.get(item);
    if (first === undefined) firstAt.set(item, index);
    else found.push({ index, first });
  });
  return found;
}
