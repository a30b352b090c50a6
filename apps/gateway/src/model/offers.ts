import type { ProviderOffer } from "./catalog.ts";

/** `/model`'s listing: one line per configured endpoint, with what it offers or why it could not say. */
export function offerLines(offers: readonly ProviderOffer[]): string[] {
  return offers.map((o) =>
    o.error
      ? `  ${o.provider} at ${o.endpoint}: could not list its models (${o.error})`
      : `  ${o.provider} at ${o.endpoint}: ${o.models.length ? o.models.join(", ") : "(no models)"}`,
  );
}
