let lastMs = Number.NaN;
let lastText = "";

/**
 * Wall-clock time as ISO text, in one place so tests and logs agree on the format. A run writes a
 * few events per millisecond, so the text of the current millisecond is kept rather than made again.
 */
export const isoNow = (): string => {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastText = new Date(ms).toISOString();
  }
  return lastText;
};
