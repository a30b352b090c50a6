import type { z } from "zod";
import type { EnvLike } from "../auth/types.ts";
import type { Gateway } from "../gateway.ts";

/** One line of `openassistant doctor` (structurally the CLI's `DoctorCheck`). */
export interface SurfaceCheck {
  readonly name: string;
  readonly level: "ok" | "warn" | "fail";
  readonly detail: string;
}

/** What `start` gets: the running gateway, its section of the config, and where the CLI writes. */
export interface SurfaceStartContext<Section> {
  readonly gateway: Gateway;
  /** The surface's config section as validated (`undefined` for a surface without one). */
  readonly section: Section;
  readonly env: EnvLike;
  /** Lines for the operator (stdout of `openassistant start`). */
  readonly out: (line: string) => void;
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** Reloads tools and says what changed (a surface's `/reload`). */
  readonly reload: () => Promise<string>;
}

export interface RunningSurface {
  /** Resolves when the surface ends on its own (the terminal's input closed); never, for a bot. */
  readonly done: Promise<void>;
  stop(): Promise<void> | void;
}

/**
 * A chat surface as the gateway knows it: its config key and schema, whether its section asks for
 * it to run, who its operators are, and how it starts. Everything else stays in its folder; it
 * talks to the gateway through a `SurfacePort` (port.ts). Registered in registry.ts.
 */
export interface SurfaceDefinition<Section = unknown> {
  /** The config key of its section and the prefix of the ids it records (`discord:<user id>`). */
  readonly id: string;
  /** Its config section's schema (with its defaults); absent for a surface without config. */
  readonly configSchema?: z.ZodType<Section>;
  /** Whether this section asks for the surface to run (Discord: a token is set). */
  configured(section: Section): boolean;
  /** Credentials in the section: registered with the redactor before anything starts. */
  credentials?(section: Section): readonly string[];
  /** Who may decide approvals outside the surface (the console). Absent: nobody through this surface. */
  readonly operators?: {
    /** The user id inside one of this surface's recorded ids (`discord:123` → `123`), else undefined. */
    bareId(id: string): string | undefined;
    /** Whether this user id is an approver according to the section. */
    isOperator(section: Section, userId: string): boolean;
    /** Where an operator is added, for error messages (`discord.approvers`). */
    readonly configKey: string;
  };
  /** `openassistant doctor`'s checks of its section (undefined when the section does not ask for it to run). */
  doctor?(section: Section | undefined): SurfaceCheck[];
  /**
   * One connection for all the gateways of a shared database (`storage.url`): a bot's gateway
   * connection. `start` then runs only in the holder of the lease named by `id` (surfaces/leased.ts).
   */
  readonly oneAcrossGateways?: boolean;
  start(context: SurfaceStartContext<Section>): Promise<RunningSurface>;
}

/** Typed identity: checks a definition against its own section type. */
export function defineSurface<Section>(definition: SurfaceDefinition<Section>): SurfaceDefinition<Section> {
  return definition;
}
