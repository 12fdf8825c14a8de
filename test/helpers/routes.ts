// Every (method, path) an Express app routes, read from its router: tests that must cover every route (the OpenAPI
// document, the fuzz suite) enumerate them, so a new route cannot be forgotten.
import type express from 'express';

type Layer = {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: string;
  name?: string;
};

export interface AppRoute {
  method: string;
  /** Express syntax: `/api/v1/keys/:id`, `/files/*key`. */
  path: string;
}

function walk(stack: Layer[], prefix: string, out: AppRoute[]): void {
  for (const layer of stack) {
    if (layer.route) {
      const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
      for (const p of paths)
        for (const [method, on] of Object.entries(layer.route.methods))
          if (on && method !== '_all') out.push({ method: method.toUpperCase(), path: `${prefix}${p}` });
    } else if (layer.handle?.stack && layer.name === 'router') {
      const mount = layer.rawPath && layer.rawPath !== '/' ? layer.rawPath : '';
      walk(layer.handle.stack, prefix + mount, out);
    }
  }
}

export function appRoutes(app: express.Express): AppRoute[] {
  const out: AppRoute[] = [];
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '', out);
  return out;
}
