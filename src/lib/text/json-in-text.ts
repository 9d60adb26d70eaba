// A JSON object inside a model's free text: graders (a rubric's judge, a model-checked guardrail)
// are asked for one JSON object and nothing else, but answers wrap it in prose or code fences.

/**
 * The first JSON object in `text` that `read` accepts: from each `{` in order, the longest span to
 * a `}` that parses; `read` turns it into a value or, with undefined, passes on to the next `{`.
 */
export function firstJsonObject<T>(text: string, read: (parsed: unknown) => T | undefined): T | undefined {
  for (let start = text.indexOf("{"); start >= 0; start = text.indexOf("{", start + 1)) {
    for (let end = text.lastIndexOf("}"); end > start; end = text.lastIndexOf("}", end - 1)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text.slice(start, end + 1));
      } catch {
        continue;
      }
      const value = read(parsed);
      if (value === undefined) break;
      return value;
    }
  }
  return undefined;
}

/** `text` as a JSON string for an error message, cut at `max` characters. */
export function quotedExcerpt(text: string, max = 200): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}
