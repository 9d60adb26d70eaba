// Which errors of a chat are a lost connection, the ones a resume cures: a request that found no
// service, or a stream cut in the middle (the service restarted, the network went away). Each
// platform words them its own way, always as a TypeError from fetch or from reading its body:
//
//   Node (undici)  "fetch failed" (no connection), "terminated" (a body cut: the other side closed)
//   Chromium       "Failed to fetch" (no connection), "network error" (a body cut)
//   Firefox        "NetworkError when attempting to fetch resource.", "Error in input stream"
//   Safari         "Load failed", "The network connection was lost."
//
// The AI SDK's own rule (the errors it keeps the streaming message for) counts only those that
// speak of fetch or the network, or Safari's "Load failed": Node's and Firefox's body cuts fall
// outside it. The transport renames those (./chat-responses.ts), so the SDK counts them too.
const WORDS = ["fetch", "network", "load failed", "terminated", "input stream", "connection was lost"];

/** The AI SDK's own test of a disconnect (ai 5, 6 and 7 agree on it). */
export function sdkCountsDisconnect(error: unknown): boolean {
  if (!(error instanceof TypeError)) return false;
  const message = error.message.toLowerCase();
  return message.includes("fetch") || message.includes("network") || message === "load failed";
}

export function isDisconnect(error: unknown): boolean {
  if (!(error instanceof TypeError)) return false;
  const message = error.message.toLowerCase();
  return WORDS.some((word) => message.includes(word));
}
