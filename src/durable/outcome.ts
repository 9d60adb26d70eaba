import type { ApiError, Outcome } from "../api/types";

export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
export const fail = (status: 400 | 404 | 409, code: string, message: string): { ok: false; status: 400 | 404 | 409; error: ApiError } => ({
  ok: false,
  status,
  error: { code, message },
});
export const notFound = () => fail(404, "not-found", "No such run.");
