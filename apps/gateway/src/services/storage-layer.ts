import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import type * as Scope from "effect/Scope";
import { storageBackend, type GatewayStores, type StorageBackend, type StorageOptions } from "../storage/index.ts";
import { resource } from "./resource.ts";

/** Every store of the running gateway (receipts, approvals, sessions), on one backend. */
export class Storage extends Context.Service<Storage, GatewayStores>()("openassistant/Storage") {}

/**
 * The storage layer: the backend's stores, opened in the gateway's scope and closed with it. A
 * different backend is a different layer (`storageLayer(options, postgres)`).
 */
export function storageLayer(
  options: StorageOptions,
  log: (line: string) => void,
  backend: StorageBackend = storageBackend(),
): Layer.Layer<Storage, unknown> {
  return Layer.effect(
    Storage,
    resource(
      "storage",
      () => backend.open(options),
      (stores) => stores.close(),
      log,
    ),
  );
}

/** The stores, opened from `layer` into the current scope. */
export const openStores = (layer: Layer.Layer<Storage, unknown>): Effect.Effect<GatewayStores, unknown, Scope.Scope> =>
  Effect.map(Layer.build(layer), (context) => Context.get(context, Storage));
