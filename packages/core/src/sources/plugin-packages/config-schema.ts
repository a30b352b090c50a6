import { z } from "zod";

/** `config.plugins`: npm name (optionally `name@range`), `file://` URL, relative or absolute path. */
export const pluginsConfigSchema = z.array(z.string().min(1)).default([]);
