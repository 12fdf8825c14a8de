// Activities of the production workflow (production-<order id>, docs/production.md): thin steps over db/production.ts
// and the engines lib/print (print files) and lib/production (job sheet, ZIP). Each is keyed by the order and the
// line item id: a retry or a restarted worker finds what was made and makes nothing twice.
import sharp from 'sharp';
import {
  markProductionFailed,
  markProductionReady,
  openProductionJob,
  productionFile,
  productionOf,
  productionOrder,
  recordProductionFile,
  type ProductionOrder,
} from '../db/production';
import { mockupPrintSource, printFileFor } from '../db/print-files';
import type { Storage } from '../lib/storage';
import { putStream } from '../lib/storage';
import { isBadInput } from '../lib/errors';
import { createUserImageLoader } from '../lib/fetch/user-images';
import { storedFileName } from '../lib/print/make';
import { defaultPrintSize } from '../lib/print/sizes';
import { renderJobSheet, zipStream, type ArchiveEntry, type JobSheetLine } from '../lib/production';
import { ProductionErrors } from '../lib/production/types';
import { activityContext, nonRetryable as fail, type BookkeepingDeps } from './deps';

export interface ProductionActivityDeps extends BookkeepingDeps {
  storage: Storage;
}

/** Heartbeats every 3 s while `work` runs (image work of a few seconds; the workflow's heartbeat timeout is 15 s). */
async function heartbeating<T>(work: () => Promise<T>): Promise<T> {
  const ctx = activityContext();
  const timer = ctx ? setInterval(() => ctx.heartbeat(), 3000) : undefined;
  try {
    ctx?.heartbeat();
    return await work();
  } finally {
    if (timer) clearInterval(timer);
  }
}

/** The garment size of a line: its variant title (the Size option), or the part of it that is one of the sizes. */
export function lineSize(variantTitle: string | null, sizes: string[]): string {
  if (variantTitle) {
    if (sizes.length === 0 || sizes.includes(variantTitle)) return variantTitle;
    const part = variantTitle.split(' / ').find((p) => sizes.includes(p.trim()));
    if (part) return part.trim();
  }
  return defaultPrintSize(sizes);
}

const folder = (orderId: string) => `production/${orderId}`;

export function createProductionActivities(deps: ProductionActivityDeps) {
  const { sql, storage, log } = deps;
  const loadUserImage = createUserImageLoader(deps);

  const orderOf = async (orderId: string): Promise<ProductionOrder> => {
    const o = await productionOrder(sql, orderId);
    if (!o) throw fail(ProductionErrors.NotFound, `order ${orderId} not found`);
    return o;
  };

  return {
    /** Opens the order's production (queued) and names the line items to print. */
    async beginProduction({ orderId }: { orderId: string }): Promise<{ lineItemIds: string[] }> {
      const o = await orderOf(orderId);
      await openProductionJob(sql, orderId, o.order.userId);
      return { lineItemIds: o.lines.map((l) => l.lineItemId) };
    },

    /** The line's print file for its size and the product's colour: made once (the line item id is the key). */
    async printLineItem({ orderId, lineItemId }: { orderId: string; lineItemId: string }): Promise<void> {
      if (await productionFile(sql, orderId, lineItemId)) return;
      const o = await orderOf(orderId);
      const line = o.lines.find((l) => l.lineItemId === lineItemId);
      if (!line) throw fail(ProductionErrors.NotFound, `order ${orderId} has no printable line ${lineItemId}`);
      const r = await mockupPrintSource(sql, line);
      if (!r.ok)
        throw fail(ProductionErrors.Unprintable, `line ${line.position + 1} (${line.item.title}): ${r.message}`);
      const size = lineSize(line.item.variantTitle, r.source.sizes);
      let made;
      try {
        made = await heartbeating(() => printFileFor({ sql, storage, loadUserImage }, r.source, size));
      } catch (err) {
        if (isBadInput(err))
          throw fail(ProductionErrors.Unprintable, `line ${line.position + 1}: ${(err as Error).message}`);
        throw err;
      }
      await recordProductionFile(sql, {
        orderId,
        lineItemId,
        position: line.position,
        printFileId: made.row.id,
        quantity: line.item.quantity,
      });
      log.info('production print file', { orderId, lineItemId, printFileId: made.row.id, made: made.made });
    },

    /** The job sheet PDF and the ZIP of sheet and files, then the production is ready. */
    async packProduction({ orderId }: { orderId: string }): Promise<void> {
      const o = await orderOf(orderId);
      const view = (await productionOf(sql, [orderId])).get(orderId);
      if (!view) throw fail(ProductionErrors.NotFound, `order ${orderId} has no production`);
      const byLine = new Map(view.files.map((f) => [f.lineItemId, f]));
      const thumbs = new Map<string, Buffer | null>();
      const lines: JobSheetLine[] = [];
      await heartbeating(async () => {
        for (const l of o.lines) {
          const f = byLine.get(l.lineItemId);
          if (!f) throw new Error(`line ${l.lineItemId} has no print file yet`);
          const r = await mockupPrintSource(sql, l);
          const thumbKey = r.ok ? (r.source.thumbnailKey ?? r.source.mockupKey) : null;
          if (thumbKey && !thumbs.has(thumbKey)) {
            const obj = await storage.get(thumbKey);
            thumbs.set(
              thumbKey,
              obj ? await sharp(obj.body).resize(300, 300, { fit: 'inside' }).jpeg({ quality: 80 }).toBuffer() : null,
            );
          }
          lines.push({
            lineItemId: l.lineItemId,
            title: l.item.title,
            garment: r.ok ? r.source.garmentName : '',
            color: f.color,
            size: f.size,
            quantity: l.item.quantity,
            zone: f.zone,
            widthIn: f.widthIn,
            heightIn: f.heightIn,
            widthPx: f.widthPx,
            heightPx: f.heightPx,
            dpi: f.dpi,
            preflight: f.preflight,
            fileName: `${l.position + 1}-${storedFileName(f.storageKey)}`,
            underbaseFileName: f.underbaseKey ? `${l.position + 1}-${storedFileName(f.underbaseKey)}` : null,
            thumbnail: thumbKey ? (thumbs.get(thumbKey) ?? null) : null,
          });
        }
        const pdf = Buffer.from(
          await renderJobSheet({
            orderId,
            orderName: o.order.name,
            orderedAt: o.order.createdAt,
            shipTo: o.order.shipToName ?? o.order.customerName,
            shop: o.order.shopDomain,
            lines,
          }),
        );
        const sheetKey = `${folder(orderId)}/${orderId}-job-sheet.pdf`;
        await storage.put(sheetKey, pdf, 'application/pdf');
        const entries: ArchiveEntry[] = [{ name: `${orderId}-job-sheet.pdf`, load: async () => pdf }];
        for (const [i, l] of o.lines.entries()) {
          const f = byLine.get(l.lineItemId)!;
          const load = (key: string) => async () => {
            const obj = await storage.get(key);
            if (!obj) throw new Error(`print file ${key} is missing`);
            return obj.body;
          };
          entries.push({ name: lines[i]!.fileName, load: load(f.storageKey) });
          if (f.underbaseKey) entries.push({ name: lines[i]!.underbaseFileName!, load: load(f.underbaseKey) });
        }
        const zipKey = `${folder(orderId)}/${orderId}.zip`;
        await putStream(storage, zipKey, zipStream(entries, o.order.createdAt), 'application/zip');
        await markProductionReady(sql, orderId, sheetKey, zipKey);
      });
      log.info('production ready', { orderId, lines: o.lines.length });
    },

    async recordProductionFailed({ orderId, error }: { orderId: string; error: string }): Promise<void> {
      await markProductionFailed(sql, orderId, error.slice(0, 1000));
    },
  };
}

export type ProductionActivities = ReturnType<typeof createProductionActivities>;
