// Which journal keys of a segment belong to a fork's prefix: every step of the model calls up to
// and including `step` (the segment's own count, from 1) and of their turns, the calls a segment's
// given history left open (turn 0), and the MCP listings. A compaction keyed `compact/<n>` runs
// before model call n + 1: it is in the prefix only when that call is.
const NUMBERED = /^(model|tool|start|wait|reply|loop)\/(\d+)(\/|$)/;
const COMPACTION = /^compact\/(\d+)(\/|$)/;

export function inForkPrefix(key: string, step: number): boolean {
  const numbered = NUMBERED.exec(key);
  if (numbered !== null) return Number(numbered[2]) <= step;
  const compaction = COMPACTION.exec(key);
  if (compaction !== null) return Number(compaction[1]) < step;
  return key.startsWith("mcp-list/");
}
