import { z } from "zod";
import { MIN_SECRET_BYTES } from "./limits.js";
import { parseWebhookKey } from "./webhook-key.js";

/**
 * A key a sender can sign with, for validating configuration: a `whsec_<base64>` secret of at least
 * MIN_SECRET_BYTES (16) bytes (v1), or a `whsk_<base64>` ed25519 signing key (v1a). Padding optional.
 * The issue message never repeats the key.
 */
export const WebhookSecretSchema = z.string().refine(
  (secret) => {
    try {
      return parseWebhookKey(secret).type !== "public";
    } catch {
      return false;
    }
  },
  {
    message: `Expected whsec_ followed by base64 of at least ${MIN_SECRET_BYTES} bytes, or a whsk_ ed25519 signing key`,
  },
);
