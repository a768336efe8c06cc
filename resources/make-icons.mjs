#!/usr/bin/env node
// Draws the tray and window icons as PNGs (no image tools needed): a gate — a rounded frame with
// two bars — in Toolgate blue; the "attention" variant adds an amber dot. Run: node resources/make-icons.mjs
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'

const here = path.dirname(new URL(import.meta.url).pathname)
const BLUE = [47, 111, 222]
const AMBER = [245, 158, 11]

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})
function crc32(buf) {
  let c = 0xffffffff
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}
function chunk(type, data) {
  const len = Buffer.alloc(4)
  len.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([len, body, crc])
}
function png(size, rgba) {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(size, 0)
  ihdr.writeUInt32BE(size, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 6 // RGBA
  const raw = Buffer.alloc((size * 4 + 1) * size)
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0 // filter: none
    rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4)
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

// Shapes in a unit square (0..1), as signed distances.
const sdRoundBox = (x, y, cx, cy, hw, hh, r) => {
  const qx = Math.abs(x - cx) - hw + r
  const qy = Math.abs(y - cy) - hh + r
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r
}
const sdCircle = (x, y, cx, cy, r) => Math.hypot(x - cx, y - cy) - r

function shade(x, y, attention) {
  const stroke = 0.095
  const frame = Math.abs(sdRoundBox(x, y, 0.5, 0.5, 0.4, 0.4, 0.13)) < stroke / 2
  const bar = (cx) => sdRoundBox(x, y, cx, 0.5, stroke / 2, 0.4, 0) < 0
  let color = frame || bar(0.38) || bar(0.62) ? BLUE : null
  if (attention) {
    const d = sdCircle(x, y, 0.8, 0.2, 0.2)
    if (d < 0.07) color = null // a clear ring around the dot
    if (d < 0) color = AMBER
  }
  return color
}

function draw(size, attention) {
  const ss = 4
  const buf = Buffer.alloc(size * size * 4)
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0, g = 0, b = 0, a = 0
      for (let sy = 0; sy < ss; sy++) {
        for (let sx = 0; sx < ss; sx++) {
          const c = shade((px + (sx + 0.5) / ss) / size, (py + (sy + 0.5) / ss) / size, attention)
          if (c) {
            r += c[0]
            g += c[1]
            b += c[2]
            a++
          }
        }
      }
      const i = (py * size + px) * 4
      if (a) {
        buf[i] = Math.round(r / a)
        buf[i + 1] = Math.round(g / a)
        buf[i + 2] = Math.round(b / a)
        buf[i + 3] = Math.round((a / (ss * ss)) * 255)
      }
    }
  }
  return png(size, buf)
}

const files = {
  'tray.png': draw(16, false),
  'tray@2x.png': draw(32, false),
  'tray-attention.png': draw(16, true),
  'tray-attention@2x.png': draw(32, true),
  'icon.png': draw(256, false),
}
for (const [name, data] of Object.entries(files)) {
  fs.writeFileSync(path.join(here, name), data)
  console.log(`${name} ${data.length} bytes`)
}
