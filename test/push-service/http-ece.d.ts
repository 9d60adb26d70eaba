// The types of the parts of http_ece (Encrypted Content-Encoding, the package web-push encrypts
// with) that the local push service decrypts with.
declare module "http_ece" {
  import type { ECDH } from "node:crypto";
  export type DecryptParams = { version: "aes128gcm" | "aesgcm" | "aesgcm128"; privateKey?: ECDH; authSecret?: string; dh?: string; salt?: string };
  export function decrypt(buffer: Buffer, params: DecryptParams): Buffer;
  const ece: { decrypt: typeof decrypt };
  export default ece;
}
