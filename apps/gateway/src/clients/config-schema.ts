import { z } from "zod";

/** #34: the `clients` section (docs/client-tools.md). */
export const clientsConfigSchema = z
  .strictObject({
    /** Seconds a session waits for its client to come back after the connection drops (its pending calls wait too). */
    graceSeconds: z.number().positive().max(3600).default(30),
  })
  .prefault({});
