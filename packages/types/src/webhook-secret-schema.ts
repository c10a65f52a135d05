import { z } from "zod";
import { MIN_SECRET_BYTES } from "./limits.js";
import { parseWebhookSecret } from "./webhook-secret.js";

/**
 * A `whsec_<base64>` signing secret whose key is at least MIN_SECRET_BYTES (16) bytes, for validating configuration.
 * The issue message never repeats the secret.
 */
export const WebhookSecretSchema = z.string().refine(
  (secret) => {
    try {
      parseWebhookSecret(secret);
      return true;
    } catch {
      return false;
    }
  },
  { message: `Expected whsec_ followed by base64 of at least ${MIN_SECRET_BYTES} bytes` },
);
