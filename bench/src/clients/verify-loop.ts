// Verification alone, without HTTP or Koa: how many of a request's microseconds are the checks.
// `@plant-store/receiver`'s verify() vs the `standardwebhooks` library + JSON.parse + zod, and vs
// the floor: one bare node:crypto HMAC-SHA256 of id.timestamp.body plus JSON.parse of the body.
import { createHmac, createSecretKey } from "node:crypto";
import { createVerifier } from "@plant-store/receiver";
import { NewPlantSchema } from "@plant-store/types";
import { Webhook } from "standardwebhooks";
import { createPlantSigner, type SignedPlant } from "../create-plant-signer.js";
import { answerOverIpc } from "../server-kit/serve-over-ipc.js";

export interface VerifyLoopCommand {
  kind: "plant-receiver" | "standardwebhooks" | "floor";
  count: number;
  token: string;
  secret: string;
}

export interface VerifyLoopResult {
  microsPerCall: number;
  failures: number;
}

answerOverIpc(async (payload) => {
  const command = payload as VerifyLoopCommand;
  const sign = createPlantSigner(command.secret, command.token);
  // Signed up front, so only verification is timed; every id is new, as in the HTTP scenario.
  const requests: SignedPlant[] = Array.from({ length: command.count }, sign);
  let verify: (request: SignedPlant) => boolean;
  if (command.kind === "plant-receiver") {
    const verifier = createVerifier({ tokens: [command.token], secrets: [command.secret] });
    verify = (request) => verifier(Buffer.from(request.body), request.headers).ok;
  } else if (command.kind === "floor") {
    // The least any verifier must do: one HMAC over the signed bytes and one JSON.parse, with the
    // same Buffer copy of the body the receiver is given. No comparison, no checks, no schema.
    const key = createSecretKey(Buffer.from(command.secret.slice("whsec_".length), "base64"));
    verify = (request) => {
      const body = Buffer.from(request.body);
      const mac = createHmac("sha256", key)
        .update(`${request.headers["webhook-id"]}.${request.headers["webhook-timestamp"]}.`)
        .update(body)
        .digest();
      return mac.length === 32 && JSON.parse(body.toString("utf8")) !== null;
    };
  } else {
    const webhook = new Webhook(command.secret);
    const bearer = `Bearer ${command.token}`;
    verify = (request) => {
      if (request.headers.authorization !== bearer) return false;
      webhook.verify(request.body, request.headers);
      return NewPlantSchema.safeParse(JSON.parse(request.body)).success;
    };
  }
  let failures = 0;
  const started = process.cpuUsage();
  for (const request of requests) {
    if (!verify(request)) failures += 1;
  }
  const used = process.cpuUsage(started);
  return { microsPerCall: (used.user + used.system) / command.count, failures } satisfies VerifyLoopResult;
});
process.send?.({ type: "ready" });
