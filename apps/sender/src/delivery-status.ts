import { z } from "zod";

export const DeliveryStatus = z.enum(["pending", "delivered", "failed"]);
