// The same model text, step after step, with no new tool result in between: a model that says
// "Let me check that again." while nothing it learns changes (the "thinking loop"). Text is
// compared normalised (normalizeText), and a turn with no text at all starts no run.

export type SameTextState = { readonly text: string; readonly run: number };

export const emptySameText: SameTextState = { text: "", run: 0 };

/** Case, spacing and Unicode forms aside, so "Let me check.\n" and "let me  check." are the same text. */
export function normalizeText(text: string): string {
  // NFKC only where there is something to fold: most model text is ASCII, and the step stays cheap.
  const folded = /[^\x00-\x7f]/.test(text) ? text.normalize("NFKC") : text;
  return folded.toLowerCase().replace(/\s+/g, " ").trim();
}

/**
 * The state after a turn with (normalised) `text`. `freshBefore`: the turn before it brought a
 * new tool result (or a message of the person's), which ends any run. The count is `run`.
 */
export function nextSameText(state: SameTextState, text: string, freshBefore: boolean): SameTextState {
  if (text === "") return emptySameText;
  if (text === state.text && !freshBefore) return { text, run: state.run + 1 };
  return { text, run: 1 };
}
