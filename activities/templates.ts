// Activities of the template import workflow (workflows/template-import.ts), on TEMPLATE_TASK_QUEUE. Thin: the
// limits (lib/templates/limits.ts) and the engine (lib/templates) do the work; this reads and writes storage and the
// template's row. Idempotent on the template id: a second run finds the row no longer processing and does nothing,
// and a row deleted while its import ran leaves no files behind.
import { accountDeleted } from '../db/account-deletion';
import { completeTemplateImport, failTemplateImport, templateById, type TemplateSmartObject } from '../db/templates';
import { isBadInput } from '../lib/errors';
import { makeThumbnailFromRaw } from '../lib/images';
import { storePrepared, type PreparedTemplateCache } from '../lib/template-import/prepared-store';
import { parseTemplate } from '../lib/template-import/parse-lazily';
import { prepareTemplate } from '../lib/templates/prepare';
import { renderOwnContent } from '../lib/templates/render';
import { encodePreview, fidelityOf, storeOwnContent } from '../lib/template-import/refresh';

import { checkTemplateFile } from '../lib/templates/limits';
import { activityContext, nonRetryable, type BookkeepingDeps } from './deps';
import type { Storage } from '../lib/storage';

export interface TemplateActivityDeps extends BookkeepingDeps {
  storage: Storage;
  /** the worker's prepared templates (the import puts the one it made; renders read through it) */
  templates: PreparedTemplateCache;
}

export function createTemplateActivities(deps: TemplateActivityDeps) {
  const { sql, storage, log, templates } = deps;
  const heartbeat = (step: string) => activityContext()?.heartbeat(step);

  return {
    /**
     * Reads the template's PSD, checks it against the limits, parses it, prepares it once, stores the prepared
     * buffers, renders its own content (the preview, compared with the composite Photoshop saved) and marks it ready.
     */
    async importTemplate(templateId: string): Promise<void> {
      const row = await templateById(sql, templateId);
      if (!row || row.status !== 'processing') return; // deleted, or finished by an earlier run
      const source = await storage.get(row.sourceKey);
      if (!source) throw nonRetryable('BadInputError', 'The uploaded file is no longer in storage');
      const written: string[] = [];
      // milliseconds per step, logged with the import (bench/templates.ts reads them)
      const ms: Record<string, number> = {};
      let t0 = performance.now();
      const step = (name: string) => {
        const now = performance.now();
        ms[name] = Math.round(now - t0);
        t0 = now;
        heartbeat(name);
      };
      step('read');
      try {
        checkTemplateFile(source.body);
        step('limits');
        const parsed = parseTemplate(source.body);
        step('parse');
        const prepared = prepareTemplate(parsed);
        step('prepare');
        // The prepared buffers are written and the preview's PNG and thumbnail encoded (on libuv's threads) while this
        // thread compares the render with the composite Photoshop saved.
        const own = renderOwnContent(prepared);
        const storing = storePrepared(storage, templateId, prepared);
        const encoding = Promise.all([encodePreview(own), makeThumbnailFromRaw(own)]);
        const both = Promise.all([storing, encoding]);
        both.catch(() => {}); // awaited below; a rejection before then is not unhandled
        const fidelity = fidelityOf(own, parsed.photoshopComposite);
        step('fidelity');
        const [stored, [preview, thumb]] = await both;
        written.push(...stored.keys);
        const outputs = await storeOwnContent(storage, templateId, preview, thumb);
        written.push(outputs.previewKey, outputs.thumbnailKey);
        step('store');
        const done = await completeTemplateImport(sql, templateId, {
          ...outputs,
          preparedKey: stored.key,
          smartObjects: parsed.smartObjects.map((s): TemplateSmartObject => ({
            id: s.id,
            name: s.name,
            width: s.width,
            height: s.height,
            quad: s.quad,
            warp: s.warp,
            blendMode: s.blendMode,
            printSize: s.printSize ?? null,
          })),
          fidelity,
          unsupported: parsed.unsupported.map((u) => ({ layer: u.layer, feature: u.feature })),
        });
        if (!done) {
          // deleted while it was imported, or its account's deletion began (or another run finished it first: then
          // its row names the same keys)
          const now = await templateById(sql, templateId);
          if (!now || (await accountDeleted(sql, now.userId)))
            await Promise.allSettled(written.map((k) => storage.delete(k)));
          return;
        }
        templates.put(stored.key, prepared, stored.bytes);
        step('complete');
        log.info('template imported', { templateId, smartObjects: parsed.smartObjects.length, fidelity, ms });
      } catch (err) {
        if (isBadInput(err))
          throw nonRetryable(err.name === 'TemplateLimitError' ? err.name : 'BadInputError', err.message);
        throw err;
      }
    },

    /** Marks the import failed with its reason (a row already finished or deleted is left as it is). */
    async failTemplateImport(templateId: string, error: string): Promise<void> {
      await failTemplateImport(sql, templateId, error);
    },
  };
}
