import { z } from "zod";

/** `config.workspace`: the assistant's own tool files (`tools.workspace.*`). Read once, at start. */
export const workspaceConfigSchema = z
  .strictObject({
    /** Offer `tools.workspace.*` to the model at all. */
    enabled: z.boolean().default(true),
    /**
     * DANGEROUS: lets operator rules and "approve always" make writing or removing tool files
     * automatic. Tools run in the gateway with full rights; leave this off.
     */
    allowAutoWrite: z.boolean().default(false),
  })
  .prefault({});
