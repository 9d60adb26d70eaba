// Which errors of a chat are a lost connection, the ones a resume cures. The AI SDK keeps the
// streaming message for a resume on exactly these (a TypeError from fetch whose message speaks of
// fetch or the network, or Safari's "Load failed"), so an app that resumes on them gets the same
// message back, growing from where the service is.
export function isDisconnect(error: unknown): boolean {
  if (!(error instanceof TypeError)) return false;
  const message = error.message.toLowerCase();
  return message.includes("fetch") || message.includes("network") || message === "load failed";
}
