// The answers of the chat endpoints as the AI SDK should read them. The SDK's transport turns a
// refusal into an Error whose message is the response's whole body, so a chat would show
// `{"error":{"code":"conflict",…}}`: here the body becomes the API error's own message. And a stream
// cut in the middle fails with the platform's words, which the SDK does not always count as a
// disconnect (./disconnect.ts): such an error is passed on renamed, "network error: <words>", its
// cause the original, so the SDK keeps the message for a resume as it does for the others.
import { isDisconnect, sdkCountsDisconnect } from "./disconnect.ts";
import type { FetchFunction } from "./reconnecting-fetch.ts";

/** A cut the SDK would not count, renamed so that it does. */
export function asSdkDisconnect(error: unknown): unknown {
  if (!isDisconnect(error) || sdkCountsDisconnect(error)) return error;
  return new TypeError(`network error: ${(error as TypeError).message}`, { cause: error });
}

/** The body, with a cut renamed; everything else (an abort included) passes as it is. */
function readableCuts(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      pull: async (controller) => {
        try {
          const { value, done } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          controller.error(asSdkDisconnect(error));
        }
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/** The message of an answer in the API's error shape (`{ error: { code, message } }`), else undefined. */
function apiErrorMessage(text: string): string | undefined {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    return typeof message === "string" && message !== "" ? message : undefined;
  } catch {
    return undefined;
  }
}

export function chatResponses(fetch: FetchFunction): FetchFunction {
  return async (input, init) => {
    let response: Response;
    try {
      response = await fetch(input, init);
    } catch (error) {
      throw asSdkDisconnect(error);
    }
    if (!response.ok) {
      const text = await response.text();
      const headers = new Headers(response.headers);
      headers.set("content-type", "text/plain; charset=utf-8");
      headers.delete("content-length");
      return new Response(apiErrorMessage(text) ?? text, { status: response.status, statusText: response.statusText, headers });
    }
    if (response.body === null || response.status === 204) return response;
    return new Response(readableCuts(response.body), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
