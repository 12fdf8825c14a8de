// GET /api/auth/account/export: the account's data with a link (under /files/) beside every stored file's key.
import { readAccountExport } from '../../db/account-export';
import type { AppDeps } from '../context';

export async function exportAccount(deps: AppDeps, userId: string) {
  const data = await readAccountExport(deps.sql, userId);
  const fileUrl = (key: unknown) =>
    typeof key === 'string' && key ? `${deps.config.publicBaseUrl}/files/${key}` : null;
  const withLinks = (rows: Record<string, unknown>[]) =>
    rows.map((r) => {
      const out: Record<string, unknown> = { ...r };
      for (const [k, v] of Object.entries(r)) if (k.endsWith('Key')) out[k.replace(/Key$/, 'Url')] = fileUrl(v);
      return out;
    });
  return {
    exportedAt: new Date().toISOString(),
    ...data,
    uploads: withLinks(data.uploads),
    generations: withLinks(data.generations),
    chatThreads: data.chatThreads.map((t) => ({
      ...t,
      images: withLinks((t.images as Record<string, unknown>[] | null) ?? []),
    })),
  };
}
