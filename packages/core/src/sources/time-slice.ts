/**
 * Work on the gateway's thread done in stretches of at most `sliceMs`, with the event loop let in
 * between (other conversations, Discord acknowledgements, `/health`): for loops over what a tool
 * source lists, whose length someone else decides.
 */
export class TimeSlicer {
  private start = performance.now();

  constructor(private readonly sliceMs = 10) {}

  /** Resolves at once inside a stretch; past it, after the event loop has had a turn. */
  async pause(): Promise<void> {
    if (performance.now() - this.start < this.sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.start = performance.now();
  }
}
