// A gateway process stand-in for lease tests: takes the lease on argv[2], says "held" on stdout, then waits to be killed.
import { takeLease } from "../../src/db/postgres/lease.ts";

const lease = takeLease(process.argv[2]!, process.argv[3]!, { retryMs: 100 });
await lease.acquired();
process.stdout.write("held\n");
setInterval(() => {}, 1 << 30);
