import { z } from "zod";

/**
 * The characters a bearer token may hold: visible ASCII (0x21 to 0x7e), the receiver's own rule for the
 * tokens it accepts. A space ends the token in `Authorization: Bearer <token>`, CR/LF and NUL are refused
 * by every HTTP client (Node's `ERR_INVALID_CHAR`), and non-ASCII is not a header value a receiver can be
 * relied on to read back as the same bytes: a token outside this class can never be delivered.
 */
export const BEARER_TOKEN_PATTERN = /^[\x21-\x7e]+$/;

/** A bearer token as configured on either side. The issue message never repeats the token. */
export const BearerTokenSchema = z
  .string()
  .min(1, "must not be empty")
  .regex(
    BEARER_TOKEN_PATTERN,
    "must be visible ASCII (0x21-0x7e): no spaces, control or non-ASCII characters",
  );
