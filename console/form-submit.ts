// A console form's submit, the one way every form does it: its fields read (a sentence instead, when
// one is missing or wrong, shown under the form), then the work, with the submit button disabled
// until it ends, and what went wrong told under the form in the API's words.
import { describe } from "./describe-error";
import { show } from "./dom";

/** Shows `message` in `node` (the error under a form), or hides it (undefined). */
export function tell(node: HTMLElement, message: string | undefined): void {
  node.textContent = message ?? "";
  show(node, message !== undefined);
}

/** A field's value, trimmed ("" when the form has none). */
export function field(data: FormData, name: string): string {
  return String(data.get(name) ?? "").trim();
}

/**
 * On each submit of `form`: `read` answers with the work to do, or with what is wrong, which
 * `error` shows (and the work is not done).
 */
export function onSubmit(form: HTMLFormElement, error: HTMLElement, read: (data: FormData) => string | (() => Promise<void>)): void {
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const work = read(new FormData(form));
    if (typeof work === "string") return tell(error, work);
    tell(error, undefined);
    const button = form.querySelector<HTMLButtonElement>("button[type=submit]");
    if (button !== null) button.disabled = true;
    work()
      .catch((failure: unknown) => tell(error, describe(failure)))
      .finally(() => {
        if (button !== null) button.disabled = false;
      });
  });
}
