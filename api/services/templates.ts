// Template use cases (docs/templates.md): import (the file checked against the limits before anything is stored,
// stored, recorded, its import workflow started and awaited up to TEMPLATE_SYNC_TIMEOUT_MS), presentation, delete.
import { deleteTemplate, getTemplate, insertTemplate, type TemplateRow } from '../../db/templates';
import { releaseStorage, reserveStorage } from '../../db/uploads';
import { isUrlFetchError, readUserUrl } from '../../lib/fetch';
import { timeId } from '../../lib/ids';
import type { Logger } from '../../lib/log';
import { fileUrl } from '../../lib/storage';
import { preparedKeys } from '../../lib/template-import/prepared-store';
import { templateImportWorkflowId, templateKeys } from '../../lib/template-import/types';
import { checkTemplateFile, TemplateLimitError, type TemplateScan } from '../../lib/templates/limits';
import { within } from '../../lib/wait';
import { templateImport } from '../../workflows';
import type { AppDeps } from '../context';
import { ApiError, badInputFrom, badRequest } from '../errors';
import { templateTooLarge, type TemplateBody } from '../http/template-body';
import type { TemplateResource } from '../http/template-schemas';

/** How long fetching a template's URL may take, redirects and body included. */
export const TEMPLATE_FETCH_TIMEOUT_MS = 60_000;

export function presentTemplate(deps: AppDeps, row: TemplateRow): TemplateResource {
  const url = (key: string | null) => (row.status === 'ready' && key ? fileUrl(deps.config, key) : null);
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    width: row.width,
    height: row.height,
    previewUrl: url(row.previewKey),
    thumbnailUrl: url(row.thumbnailKey),
    // the fields exactly: the print size read at import stays inside (its print file tells it)
    smartObjects: row.smartObjects.map((o) => ({
      id: o.id,
      name: o.name,
      width: o.width,
      height: o.height,
      quad: o.quad,
      warp: o.warp,
      blendMode: o.blendMode,
    })),
    fidelity: row.fidelity,
    unsupported: row.unsupported,
    ...(row.status === 'failed' ? { error: row.error ?? 'The import failed' } : {}),
  };
}

/** The template's bytes: the uploaded file, or the URL's body (our own files from storage, others SSRF-guarded). */
async function templateBytes(deps: AppDeps, body: TemplateBody): Promise<{ bytes: Buffer; filename: string }> {
  const maxBytes = deps.config.templates.maxBytes;
  if (body.kind === 'file') {
    if (body.bytes.length > maxBytes) throw templateTooLarge(maxBytes, body.bytes.length);
    return { bytes: body.bytes, filename: body.filename };
  }
  try {
    const { body: bytes } = await readUserUrl(deps, body.url, { maxBytes, timeoutMs: TEMPLATE_FETCH_TIMEOUT_MS });
    return { bytes, filename: decodeURIComponent(new URL(body.url).pathname.split('/').pop() ?? '') };
  } catch (err) {
    if (isUrlFetchError(err)) {
      if (err.reason === 'too_large') throw templateTooLarge(maxBytes);
      throw badInputFrom(err, 'url');
    }
    throw err;
  }
}

/** The file checked against the template limits (lib/templates/limits.ts): a 400 naming what is wrong. */
function scanned(bytes: Buffer): TemplateScan {
  let scan: TemplateScan;
  try {
    scan = checkTemplateFile(bytes);
  } catch (err) {
    if (err instanceof TemplateLimitError) throw badRequest(err.message, { reason: err.reason, ...err.details });
    throw err;
  }
  if (scan.smartObjects === 0)
    throw badRequest(
      'The PSD has no smart object to place a design in: convert the design layer to a smart object in Photoshop ' +
        '(Layer > Smart Objects > Convert to Smart Object) and save again',
      { reason: 'no_smart_objects' },
    );
  return scan;
}

const nameOf = (given: string | undefined, filename: string) =>
  given ??
  (filename
    .replace(/\.(psd|psb)$/i, '')
    .trim()
    .slice(0, 200) ||
    'Untitled template');

export interface Caller {
  userId: string;
  livemode: boolean;
}

/** Bytes as MiB with one decimal, for messages. */
const mib = (n: number) => `${(n / 1024 ** 2).toFixed(1)} MiB`;

/**
 * Imports a template: checks, stores the file, records the row (processing) and starts template-import-<id> on
 * TEMPLATE_TASK_QUEUE. With `sync`, waits up to TEMPLATE_SYNC_TIMEOUT_MS for the import; `finished` says whether it
 * ended (ready or failed) in that time.
 */
export async function importTemplate(
  deps: AppDeps,
  caller: Caller,
  body: TemplateBody,
  opts: { sync: boolean; log: Logger },
): Promise<{ row: TemplateRow; finished: boolean }> {
  const { bytes, filename } = await templateBytes(deps, body);
  const scan = scanned(bytes);
  // the file counts against the account's storage quota as uploads do (STORAGE_QUOTA_BYTES), given back on delete
  const limit = deps.config.uploads.quotaBytes;
  const reserved = await reserveStorage(deps.sql, caller.userId, bytes.length, limit);
  if (!reserved.ok)
    throw new ApiError(
      413,
      'storage_quota_exceeded',
      `Storage quota exceeded: this template needs ${mib(bytes.length)} and the account stores ` +
        `${mib(reserved.usedBytes)} of its ${mib(limit)}`,
      { usedBytes: reserved.usedBytes, requiredBytes: bytes.length, limitBytes: limit },
    );
  const release = () => releaseStorage(deps.sql, caller.userId, bytes.length).catch(() => {});
  const id = timeId('tpl');
  const keys = templateKeys(id, scan.format);
  await deps.storage.put(keys.source, bytes, 'application/octet-stream').catch(async (err: unknown) => {
    await release();
    throw err;
  });
  const inserted = await insertTemplate(
    deps.sql,
    {
      id,
      userId: caller.userId,
      livemode: caller.livemode,
      name: nameOf(body.name, filename),
      sourceKey: keys.source,
      sourceBytes: bytes.length,
      format: scan.format,
      width: scan.width,
      height: scan.height,
    },
    deps.config.templates.perAccount,
  ).catch(async (err: unknown) => {
    await deps.storage.delete(keys.source).catch(() => {});
    await release();
    throw err;
  });
  if (!inserted.inserted) {
    await deps.storage.delete(keys.source).catch(() => {});
    await release();
    throw new ApiError(
      409,
      'conflict',
      `The account holds ${inserted.count} templates, the limit (TEMPLATES_PER_ACCOUNT): delete one to import another`,
      { limit: deps.config.templates.perAccount },
    );
  }
  let handle;
  try {
    handle = await deps.temporal.workflow.start(templateImport, {
      workflowId: templateImportWorkflowId(id),
      taskQueue: deps.config.templates.taskQueue,
      args: [{ templateId: id, accountId: caller.userId }],
      searchAttributes: { AccountId: [caller.userId] },
    });
  } catch (err) {
    // nothing will import it: no row and no file are left behind
    await deleteTemplate(deps.sql, caller.userId, id, caller.livemode);
    await deps.storage.delete(keys.source).catch(() => {});
    await release();
    throw err;
  }
  opts.log.info('template import started', { templateId: id, bytes: bytes.length, format: scan.format });
  let finished = false;
  if (opts.sync && deps.config.templates.syncTimeoutMs > 0) {
    // closed either way (the row says how)
    const closed = handle.result().then(
      () => true,
      () => true,
    );
    finished = (await within(deps.config.templates.syncTimeoutMs, closed)) === true;
  }
  const row = (await getTemplate(deps.sql, caller.userId, id, caller.livemode)) ?? inserted.row;
  if (finished && row.status === 'failed') {
    // the file could not be read, and the client is still here to be told: a 400, and nothing is kept
    await removeTemplate(deps, caller, id);
    throw badRequest(`The PSD cannot be used as a template: ${row.error ?? 'it could not be read'}`, {
      reason: 'unreadable',
    });
  }
  return { row, finished };
}

/** Deletes a template: its row at once, its import cancelled if running, its files. Undefined when there is none. */
export async function removeTemplate(deps: AppDeps, caller: Caller, id: string): Promise<TemplateRow | undefined> {
  const row = await deleteTemplate(deps.sql, caller.userId, id, caller.livemode);
  if (!row) return undefined;
  // its file's bytes go back to the storage quota (the row held them: deleted once, released once)
  await releaseStorage(deps.sql, caller.userId, row.sourceBytes);
  if (row.status === 'processing')
    await deps.temporal.workflow
      .getHandle(templateImportWorkflowId(id))
      .cancel()
      .catch(() => {});
  const keys = templateKeys(id, row.format);
  const prepared = row.preparedKey ? await preparedKeys(deps.storage, row.preparedKey).catch(() => []) : [];
  await Promise.allSettled(
    [row.sourceKey, row.previewKey, row.thumbnailKey, keys.preview, keys.thumbnail, ...prepared]
      .filter((k): k is string => !!k)
      .map((k) => deps.storage.delete(k)),
  );
  return row;
}
