import type { StoredFile } from "./messages.ts";
import type { Json } from "./types.ts";

export interface RouteRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  query: Record<string, string>;
  body: any;
  files: StoredFile[];
}

export interface RouteResult {
  status: number;
  body?: Json | Json[] | null;
}

export type RouteHandler = (req: RouteRequest) => RouteResult | Promise<RouteResult>;

interface Route {
  method: string;
  segments: string[];
  handler: RouteHandler;
  auth: boolean;
}

/** Minimal method + path router with `:param` segments (matched against the decoded path). */
export class Router {
  private readonly routes: Route[] = [];

  add(method: string, pattern: string, handler: RouteHandler, options: { auth?: boolean } = {}): void {
    this.routes.push({ method, segments: pattern.split("/").filter(Boolean), handler, auth: options.auth ?? true });
  }

  match(method: string, path: string): { route: Route; params: Record<string, string> } | { allowed: string[] } | null {
    const parts = path.split("/").filter(Boolean);
    const allowed: string[] = [];
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      if (route.method === method) return { route, params };
      allowed.push(route.method);
    }
    return allowed.length ? { allowed } : null;
  }
}

function matchSegments(segments: string[], parts: string[]): Record<string, string> | null {
  if (segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.startsWith(":")) params[segment.slice(1)] = parts[i]!;
    else if (segment !== parts[i]) return null;
  }
  return params;
}

export const ok = (body: Json | Json[]): RouteResult => ({ status: 200, body });
export const noContent = (): RouteResult => ({ status: 204, body: null });
