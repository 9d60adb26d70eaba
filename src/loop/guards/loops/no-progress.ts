// No new information for K steps: every tool result of those turns was one the question had seen
// already (hashed), and the person said nothing new. The state is the hashes seen, the newest
// MAX_TRACKED_RESULTS of them, the oldest forgotten first: the question's tracker keeps them in a
// RecentNumbers (lib/recent-numbers.ts: numbers in typed arrays, no object per result, updated in
// place); the count of turns in a row that learned nothing is the tracker's (loop-tracker.ts).

/** Distinct results remembered per question; the oldest is forgotten past this. */
export const MAX_TRACKED_RESULTS = 1024;
