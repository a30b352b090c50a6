import type { CommandStore } from "./commands.ts";
import type { Gateway } from "./gateway.ts";
import type { InteractionService } from "./interactions.ts";
import type { MessageService } from "./messages.ts";
import type { World } from "./world.ts";

/** Everything the REST routes and test helpers work on. */
export interface Services {
  world: World;
  gateway: Gateway;
  messages: MessageService;
  interactions: InteractionService;
  commands: CommandStore;
  config: {
    botId: string;
    applicationId: string;
    applicationFlags: number;
    baseUrl(): string;
    gatewayUrl(): string;
  };
}
