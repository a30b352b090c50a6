const DISCORD_EPOCH = 1420070400000n;

/** Generates real-looking, strictly increasing snowflakes (discord.js derives timestamps from them). */
export class SnowflakeGenerator {
  private last = 0n;

  next(): string {
    const now = (BigInt(Date.now()) - DISCORD_EPOCH) << 22n;
    this.last = now > this.last ? now : this.last + 1n;
    return this.last.toString();
  }
}

export function randomToken(bytes = 24): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  return Buffer.from(buf).toString("base64url");
}
