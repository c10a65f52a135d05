/**
 * The first bytes of a receiver's answer as text every store can keep. Bytes that are not UTF-8
 * become U+FFFD (what `Buffer#toString` does), and so does NUL: PostgreSQL text cannot hold it
 * (`invalid byte sequence for encoding "UTF8": 0x00`), so an attempt whose answer held one could never
 * be recorded, and its delivery was sent again at every lease's end, forever. One mark for "a byte
 * that is not text here" rather than an escape such as `\0`, which a receiver could also send literally.
 */
export function responseExcerpt(bytes: Buffer): string {
  return bytes.toString("utf8").replaceAll("\u0000", "\uFFFD");
}
