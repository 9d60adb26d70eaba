// A prefix as a range of keys SQLite reads with its index: `key >= prefix AND key < prefixEnd(prefix)`.

/** The first key after every key that starts with `prefix` (its last character one higher). */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
