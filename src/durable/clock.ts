/** Wall-clock time as ISO text, in one place so tests and logs agree on the format. */
export const isoNow = (): string => new Date().toISOString();
