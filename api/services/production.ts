// Production of paid orders as the storefront routes answer it (issue 36, docs/production.md): the `production` of
// each order (the storefront's order presenter adds it to every order).
import type { z } from 'zod';
import { productionOf } from '../../db/production';
import { fileUrl } from '../../lib/storage';
import type { AppDeps } from '../context';
import type { productionResource } from '../http/print-schemas';

export type ProductionMap = Map<string, z.infer<typeof productionResource>>;

/** The production of each of these orders that has one. */
export async function productionByOrder(deps: Pick<AppDeps, 'sql' | 'config'>, orderIds: string[]) {
  const out: ProductionMap = new Map();
  const url = (key: string | null) => (key ? fileUrl(deps.config, key) : null);
  for (const [id, p] of await productionOf(deps.sql, orderIds))
    out.set(id, {
      status: p.status,
      jobSheetUrl: p.status === 'ready' ? url(p.jobSheetKey) : null,
      archiveUrl: p.status === 'ready' ? url(p.archiveKey) : null,
      error: p.error,
      files: p.files.map((f) => ({
        lineItemId: f.lineItemId,
        printFileUrl: fileUrl(deps.config, f.storageKey),
        underbaseUrl: url(f.underbaseKey),
        widthPx: f.widthPx,
        heightPx: f.heightPx,
        dpi: f.dpi,
        size: f.size,
        color: f.color,
        zone: f.zone,
        quantity: f.quantity,
        preflight: f.preflight,
      })),
    });
  return out;
}
