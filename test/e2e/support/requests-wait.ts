// The fake vendor servers' long-poll `GET /__control/wait?model=&requests=&aborted=`: it answers
// 200 with the model's recorded requests once at least `requests` have arrived and `aborted` of
// them were aborted, or 408 with what did arrive after 20 s. Tests in workerd wait on it instead
// of asking again and again.
import type { Changes } from "./changes";

export function waitForRequests<R extends { aborted: boolean }>(url: URL, model: string, requests: () => R[], changed: Changes, send: (status: number, value: unknown) => void): void {
  const wanted = Number(url.searchParams.get("requests") ?? "1");
  const aborted = Number(url.searchParams.get("aborted") ?? "0");
  const abortedNow = () => requests().filter((record) => record.aborted).length;
  void changed
    .until(() => requests().length >= wanted && abortedNow() >= aborted, 20_000, () => `model ${model}: ${requests().length} requests (${abortedNow()} aborted), not ${wanted} (${aborted} aborted)`)
    .then(
      () => send(200, requests()),
      (error: Error) => send(408, { error: error.message }),
    );
}
