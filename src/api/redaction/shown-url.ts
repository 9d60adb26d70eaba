// A URL of a stored body as it may leave the service (docs/api.md, "What leaves the service"): a URL
// may carry credentials (`https://user:password@host/mcp?api_key=…#token`), so what is shown keeps
// where it points (scheme, host, port and path) and each query parameter's name, and drops the
// userinfo, every query value and the fragment. Pure; the stored body keeps the real URL, which the
// run needs.

/** What stands for each query value, and for the whole of a text that is not a URL. */
export const URL_REDACTED = "REDACTED";

/** `text` without its userinfo, query values and fragment; a text that does not parse as a URL shows nothing of itself. */
export function shownUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return URL_REDACTED;
  }
  // Only an http(s) URL is ever stored (the schemas check it); any other is shown as nothing, like text that does not parse.
  if (url.protocol !== "http:" && url.protocol !== "https:") return URL_REDACTED;
  const names = [...url.searchParams.keys()].map((name) => `${encodeURIComponent(name)}=${URL_REDACTED}`);
  return `${url.protocol}//${url.host}${url.pathname}${names.length === 0 ? "" : `?${names.join("&")}`}`;
}

/** A URL inside free text (an error message): up to the first space, quote or angle bracket. */
const URL_IN_TEXT = /https?:\/\/[^\s"'<>]+/gi;

/** `text` (an error a server or the runtime wrote) with every http(s) URL in it shown as shownUrl shows it; trailing punctuation stays outside the URL. */
export function shownUrlsIn(text: string): string {
  return text.replace(URL_IN_TEXT, (found) => {
    const trail = /[.,;:!?)\]]+$/.exec(found)?.[0] ?? "";
    return shownUrl(found.slice(0, found.length - trail.length)) + trail;
  });
}
