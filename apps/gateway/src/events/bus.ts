import type { GatewayEvent } from "./types.ts";

export type EventListener = (event: GatewayEvent) => void;

export interface EventBus {
  emit(event: GatewayEvent): void;
  /** Returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void;
  readonly listenerCount: number;
}

/** Synchronous fan-out; a throwing listener is isolated so it cannot break a turn. */
export function createEventBus(onListenerError?: (error: unknown) => void): EventBus {
  const listeners = new Set<EventListener>();
  return {
    emit(event) {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch (e) {
          onListenerError?.(e);
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get listenerCount() {
      return listeners.size;
    },
  };
}
