// The image media types Ratchet accepts (JPEG, PNG, GIF, WebP): what the request schemas allow and
// what images.ts checks bytes against.
export const IMAGE_MEDIA_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];
