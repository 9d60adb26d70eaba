// A user token's public id, as POST /v1/tokens answers it and DELETE /v1/tokens/:id takes it:
// `tok_<the token's jti>.<its subject's inbox object id>`. The inbox part finds where the
// revocation is kept without the subject being named (the deployment token may revoke any token
// it minted from the id alone); it is a hash of the inbox's name and tells nothing about the subject.
export const PUBLIC_TOKEN_ID_PATTERN = /^tok_([A-Za-z0-9_-]{22})\.([0-9a-f]{64})$/;

export function publicTokenId(tokenId: string, inboxId: string): string {
  return `tok_${tokenId}.${inboxId}`;
}

/** The token's jti and its inbox's object id, or undefined for an id this API never gave. */
export function parsePublicTokenId(id: string): { tokenId: string; inboxId: string } | undefined {
  const match = PUBLIC_TOKEN_ID_PATTERN.exec(id);
  return match === null ? undefined : { tokenId: match[1]!, inboxId: match[2]! };
}
