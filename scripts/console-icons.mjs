// The console's app icons, drawn here rather than kept as binary files: a ratchet wheel (white,
// twelve sawtooth teeth) on the console's accent blue, inside the safe zone of a maskable icon, so
// one drawing serves the manifest's "any" and "maskable" icons. PNG written with node:zlib.
import { deflateSync } from "node:zlib";

const ACCENT = [0x25, 0x57, 0xd6];
const WHITE = [0xff, 0xff, 0xff];
const TEETH = 12;

/** Coverage (0–1) of the wheel at a point, in units of the icon's size (centre 0.5, 0.5). */
function wheel(x, y) {
  const dx = x - 0.5;
  const dy = y - 0.5;
  const distance = Math.hypot(dx, dy);
  const turn = (Math.atan2(dy, dx) / (2 * Math.PI) + 1) % 1;
  // A sawtooth: each tooth rises slowly and drops at once, which is what makes a ratchet turn one way.
  const edge = 0.27 + 0.07 * ((turn * TEETH) % 1);
  return distance <= edge && distance >= 0.1 ? 1 : 0;
}

const CRC_TABLE = Array.from({ length: 256 }, (_unused, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** The icon as a PNG of `size` × `size` pixels (4 × 4 samples a pixel for smooth edges). */
export function iconPng(size) {
  const rows = [];
  for (let py = 0; py < size; py++) {
    const row = Buffer.alloc(1 + size * 3);
    for (let px = 0; px < size; px++) {
      let covered = 0;
      for (let sy = 0; sy < 4; sy++) for (let sx = 0; sx < 4; sx++) covered += wheel((px + (sx + 0.5) / 4) / size, (py + (sy + 0.5) / 4) / size);
      const share = covered / 16;
      for (let channel = 0; channel < 3; channel++) row[1 + px * 3 + channel] = Math.round(ACCENT[channel] * (1 - share) + WHITE[channel] * share);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", deflateSync(Buffer.concat(rows))), chunk("IEND", Buffer.alloc(0))]);
}

/** The icons the manifest and the page name, by file name. */
export const ICONS = { "icon-192.png": 192, "icon-512.png": 512, "apple-touch-icon.png": 180 };
