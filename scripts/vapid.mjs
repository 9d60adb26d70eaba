// `npm run vapid`: a new VAPID key pair for Web Push (docs/push.md), in the form the settings take
// (base64url: the uncompressed P-256 public point, the 32-byte private scalar), and the commands
// that set it. The private key is printed once, here: keep it as a secret.
import { webcrypto } from "node:crypto";

const { subtle } = webcrypto;
const pair = await subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
const publicKey = Buffer.from(await subtle.exportKey("raw", pair.publicKey)).toString("base64url");
const { d: privateKey } = await subtle.exportKey("jwk", pair.privateKey);

console.log(`VAPID_PUBLIC_KEY=${publicKey}`);
console.log(`VAPID_PRIVATE_KEY=${privateKey}`);
console.log("");
console.log("Set them with:");
console.log("  npx wrangler secret put VAPID_PRIVATE_KEY      # paste the private key");
console.log(`  wrangler.toml [vars]: VAPID_PUBLIC_KEY = "${publicKey}"`);
console.log('                        VAPID_SUBJECT = "mailto:you@example.com"   (or an https: URL)');
console.log("Changing the pair voids every push subscription: browsers subscribe again with the new public key.");
