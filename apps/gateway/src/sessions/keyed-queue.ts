/**
 * One task at a time per key, in arrival order; a task that fails does not stop the next. The
 * gateway queues turns per session with it, and the Discord surface queues a conversation's
 * deliveries (status, turn, reply) with it so replies are posted in the order they were asked.
 */
export interface KeyedQueue {
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
}

export function createKeyedQueue(): KeyedQueue {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run<T>(key: string, task: () => Promise<T>): Promise<T> {
      const result = (tails.get(key) ?? Promise.resolve()).then(task);
      const tail: Promise<unknown> = result
        .catch(() => {})
        .finally(() => {
          if (tails.get(key) === tail) tails.delete(key);
        });
      tails.set(key, tail);
      return result;
    },
  };
}
