// Print files (lib/print): what a print file is made from (a generation's or a chat mockup's design, garment, colour,
// zone in inches and placement), and the made files, one per source and garment size.
import type { Placement } from '../lib/compositing/placement';
import { MOCKUP_PLACEMENTS, type ZoneRect } from '../lib/chat/mockup-plan';
import { makePrintFile, printSourceId, type StoredPrintFile } from '../lib/print/make';
import type { PreflightReport } from '../lib/print/preflight';
import type { TemplateDesign } from '../lib/generation/types';
import { TEMPLATE_PRINT_MAX_IN, TEMPLATE_PRINT_SIZE } from '../lib/print/sizes';
import type { Storage } from '../lib/storage';
import type { SmartObjectInfo } from '../lib/templates';
import type { Sql } from './client';

/** What a print file is made from. */
export interface PrintSource {
  /** 'gen:<generation id>' or 'chat:<job id>:<mockup index>' */
  source: string;
  userId: string;
  generationId: string | null;
  chatJobId: string | null;
  /** the design: a URL (a generation's designUrl) or our own storage key (a chat job's print asset) */
  designUrl: string | null;
  designKey: string | null;
  garmentId: string;
  garmentName: string;
  sizes: string[];
  color: string;
  garmentHex: string | null;
  zone: string;
  zoneIn: { widthIn: number; heightIn: number };
  placement: Placement;
  /** the mockup's file, for the job sheet's thumbnail */
  mockupKey: string | null;
  thumbnailKey: string | null;
}

/** Why there is no source: unknown (404), not finished (409), or no physical print size (409). */
export type PrintSourceResult =
  | { ok: true; source: PrintSource }
  | { ok: false; reason: 'not_found' | 'not_completed' | 'no_physical_size'; message: string };

interface ZoneInches {
  zone_id: string;
  max_width_in: string;
  max_height_in: string;
  rect_w: number;
  rect_h: number;
}

export async function generationPrintSource(
  sql: Sql,
  generationId: string,
  userId?: string,
): Promise<PrintSourceResult> {
  const [g] = await sql<
    {
      userId: string;
      status: string;
      garmentId: string;
      garmentName: string;
      sizes: string[];
      color: string;
      hex: string | null;
      zone: string;
      placement: Placement;
      designUrl: string;
      mockupKey: string | null;
      thumbnailKey: string | null;
      widthIn: string | null;
      heightIn: string | null;
      templateId: string | null;
      designs: TemplateDesign[] | null;
    }[]
  >`
    select g.user_id as "userId", g.status, g.template_id as "templateId", g.garment_id as "garmentId",
      ga.name as "garmentName", ga.sizes,
      g.color, c.hex, g.zone, g.placement, g.design_url as "designUrl", g.mockup_key as "mockupKey",
      g.thumbnail_key as "thumbnailKey", g.designs, z.max_width_in::text as "widthIn", z.max_height_in::text as "heightIn"
    from generations g
    left join garments ga on ga.id = g.garment_id
    left join garment_colors c on c.garment_id = g.garment_id and c.name = g.color
    left join print_zones z on z.garment_id = g.garment_id and z.zone_id = g.zone
    where g.id = ${generationId} ${userId ? sql`and g.user_id = ${userId}` : sql``}`;
  if (!g) return { ok: false, reason: 'not_found', message: 'Generation not found' };
  if (g.status !== 'completed')
    return { ok: false, reason: 'not_completed', message: `Generation is ${g.status}, not completed` };
  if (g.templateId) return templatePrintSource(sql, generationId, g);
  if (!g.widthIn || !g.heightIn)
    return {
      ok: false,
      reason: 'no_physical_size',
      message: `Garment ${g.garmentId} has no ${g.zone} print zone: the print has no physical size`,
    };
  return {
    ok: true,
    source: {
      source: printSourceId.generation(generationId),
      userId: g.userId,
      generationId,
      chatJobId: null,
      designUrl: g.designUrl,
      designKey: null,
      garmentId: g.garmentId,
      garmentName: g.garmentName,
      sizes: g.sizes,
      color: g.color,
      garmentHex: g.hex,
      zone: g.zone,
      zoneIn: { widthIn: Number(g.widthIn), heightIn: Number(g.heightIn) },
      placement: g.placement,
      mockupKey: g.mockupKey,
      thumbnailKey: g.thumbnailKey,
    },
  };
}

/**
 * A render on a customer's template: its one design printed on its smart object's physical size (the resolution the
 * PSD keeps with the smart object's content, recorded at import), with the render's own placement (the same semantics
 * as a garment zone's). No print when the render fills several smart objects, the template is gone, or the smart
 * object has no resolution or one that makes it larger than TEMPLATE_PRINT_MAX_IN (docs/production.md).
 */
async function templatePrintSource(
  sql: Sql,
  generationId: string,
  g: {
    userId: string;
    templateId: string | null;
    designs: TemplateDesign[] | null;
    mockupKey: string | null;
    thumbnailKey: string | null;
  },
): Promise<PrintSourceResult> {
  const no = (message: string): PrintSourceResult => ({ ok: false, reason: 'no_physical_size', message });
  const on = `Generation ${generationId} is a render on template ${g.templateId}`;
  const designs = g.designs ?? [];
  if (designs.length !== 1)
    return no(`${on} that fills ${designs.length} smart objects: a print file is made for a render of one design`);
  const d = designs[0]!;
  const [t] = await sql<{ name: string; smartObjects: SmartObjectInfo[] }[]>`
    select name, smart_objects as "smartObjects" from templates where id = ${g.templateId}`;
  if (!t) return no(`${on}, which was deleted: its smart object's print size is gone with it`);
  const so = t.smartObjects.find((s) => s.id === d.smartObjectId);
  const size = so?.printSize;
  if (!size)
    return no(
      `${on}: its smart object ${JSON.stringify(so?.name ?? d.smartObjectId)} keeps no resolution, so it has no ` +
        'physical print size (re-import the template if it was imported before print sizes were read)',
    );
  if (size.widthIn > TEMPLATE_PRINT_MAX_IN || size.heightIn > TEMPLATE_PRINT_MAX_IN)
    return no(
      `${on}: its smart object ${JSON.stringify(so.name)} is ${size.widthIn} x ${size.heightIn} in at ${size.ppi} ppi, ` +
        `larger than the ${TEMPLATE_PRINT_MAX_IN} in a print may be on a side (set its resolution in Photoshop)`,
    );
  return {
    ok: true,
    source: {
      source: printSourceId.generation(generationId),
      userId: g.userId,
      generationId,
      chatJobId: null,
      designUrl: d.designUrl,
      designKey: null,
      garmentId: g.templateId!,
      garmentName: t.name,
      sizes: [TEMPLATE_PRINT_SIZE],
      color: '',
      garmentHex: null,
      zone: `smart-object-${so.id}`,
      zoneIn: { widthIn: size.widthIn, heightIn: size.heightIn },
      placement: d.placement,
      mockupKey: g.mockupKey,
      thumbnailKey: g.thumbnailKey,
    },
  };
}

/**
 * A design-chat mockup's source: the job's print asset placed as the mockup placed it (lib/chat/mockup-plan.ts) on
 * the catalogue garment whose colour image is the mockup's blank. A mockup on a client's own photo has no garment,
 * so no physical print size.
 */
export async function chatPrintSource(
  sql: Sql,
  jobId: string,
  mockupIndex: number,
  userId?: string,
): Promise<PrintSourceResult> {
  const [m] = await sql<
    {
      userId: string;
      status: string;
      mockupKey: string | null;
      garmentUrl: string | null;
      placement: string | null;
      printKey: string | null;
    }[]
  >`
    select j.user_id as "userId", j.status, a.storage_key as "mockupKey", a.garment_url as "garmentUrl", a.placement,
      (select p.storage_key from render_assets p where p.job_id = j.id and p.kind = 'print' order by p.position limit 1)
        as "printKey"
    from render_jobs j
    left join render_assets a on a.job_id = j.id and a.kind = 'mockup' and a.position = ${mockupIndex}
    where j.id = ${jobId} ${userId ? sql`and j.user_id = ${userId}` : sql``}`;
  if (!m) return { ok: false, reason: 'not_found', message: 'Chat job not found' };
  if (m.status !== 'completed')
    return { ok: false, reason: 'not_completed', message: `Chat job is ${m.status}, not completed` };
  if (!m.mockupKey) return { ok: false, reason: 'not_found', message: `Chat job has no mockup ${mockupIndex}` };
  if (!m.printKey) return { ok: false, reason: 'not_found', message: 'Chat job has no print asset' };
  const blankKey = m.garmentUrl ? blankKeyOf(m.garmentUrl) : null;
  const [c] = blankKey
    ? await sql<
        {
          garmentId: string;
          garmentName: string;
          sizes: string[];
          color: string;
          hex: string;
          view: string;
          zones: ZoneInches[];
        }[]
      >`
        select c.garment_id as "garmentId", g.name as "garmentName", g.sizes, c.name as color, c.hex,
          case when c.front_key = ${blankKey} then 'front' else 'back' end as view,
          (select json_agg(json_build_object('zone_id', z.zone_id, 'max_width_in', z.max_width_in::text,
                  'max_height_in', z.max_height_in::text, 'rect_w', z.rect_w, 'rect_h', z.rect_h))
             from print_zones z where z.garment_id = c.garment_id) as zones
        from garment_colors c join garments g on g.id = c.garment_id
        where c.front_key = ${blankKey} or c.back_key = ${blankKey} limit 1`
    : [];
  if (!c)
    return {
      ok: false,
      reason: 'no_physical_size',
      message: "The mockup's blank is not a catalogue garment: the print has no physical size",
    };
  const placement = m.placement === 'left-chest' ? 'left-chest' : 'front';
  const zones = new Map((c.zones ?? []).map((z) => [z.zone_id, z]));
  const main =
    c.view === 'back' ? (zones.get('back') ?? zones.get('front')) : (zones.get('front') ?? zones.get('back'));
  if (!main) return { ok: false, reason: 'no_physical_size', message: `Garment ${c.garmentId} has no print zone` };
  let zone = main.zone_id;
  let zoneIn = { widthIn: Number(main.max_width_in), heightIn: Number(main.max_height_in) };
  if (placement === 'left-chest') {
    const lc = zones.get('left-chest');
    zone = 'left-chest';
    if (lc) zoneIn = { widthIn: Number(lc.max_width_in), heightIn: Number(lc.max_height_in) };
    else {
      // the mockup's derived zone (mockup-plan.ts leftChestFrom), in the main zone's inches
      const rect: ZoneRect = { x: 0, y: 0, width: main.rect_w, height: main.rect_h };
      const inchPerFrac = zoneIn.widthIn / rect.width;
      const w = rect.width * 0.33;
      zoneIn = { widthIn: w * inchPerFrac, heightIn: Math.min(rect.height, w) * inchPerFrac };
    }
  }
  return {
    ok: true,
    source: {
      source: printSourceId.chat(jobId, mockupIndex),
      userId: m.userId,
      generationId: null,
      chatJobId: jobId,
      designUrl: null,
      designKey: m.printKey,
      garmentId: c.garmentId,
      garmentName: c.garmentName,
      sizes: c.sizes,
      color: c.color,
      garmentHex: c.hex,
      zone,
      zoneIn,
      placement: MOCKUP_PLACEMENTS[placement],
      mockupKey: m.mockupKey,
      thumbnailKey: null,
    },
  };
}

/** The print source of a published product's mockup (a generation, or a chat job's mockup; index 0 by default). */
export function mockupPrintSource(
  sql: Sql,
  m: { generationId: string | null; chatJobId: string | null; mockupIndex: number | null },
  userId?: string,
): Promise<PrintSourceResult> {
  return m.generationId
    ? generationPrintSource(sql, m.generationId, userId)
    : chatPrintSource(sql, m.chatJobId!, m.mockupIndex ?? 0, userId);
}

/** Our file's storage key from its URL (…/files/<key>), or null. */
function blankKeyOf(url: string): string | null {
  const i = url.indexOf('/files/');
  return i < 0 ? null : decodeURIComponent(url.slice(i + '/files/'.length).split('?')[0]!);
}

export interface PrintFileRow extends StoredPrintFile {
  id: string;
  userId: string;
  source: string;
  generationId: string | null;
  chatJobId: string | null;
  size: string;
  color: string;
  garmentHex: string | null;
  zone: string;
  designBox: { left: number; top: number; width: number; height: number };
  preflight: PreflightReport;
  createdAt: Date;
}

const columns = (sql: Sql) => sql`
  id, user_id as "userId", source, generation_id as "generationId", chat_job_id as "chatJobId", size, color,
  garment_hex as "garmentHex", zone, storage_key as "storageKey", underbase_key as "underbaseKey",
  width_px as "widthPx", height_px as "heightPx", dpi, width_in::float8 as "widthIn", height_in::float8 as "heightIn",
  design_box as "designBox", preflight, created_at as "createdAt"`;

export async function findPrintFile(sql: Sql, source: string, size: string): Promise<PrintFileRow | undefined> {
  const [row] = await sql<PrintFileRow[]>`
    select ${columns(sql)} from print_files where source = ${source} and size = ${size}`;
  return row;
}

export async function getPrintFiles(sql: Sql, ids: string[]): Promise<PrintFileRow[]> {
  if (ids.length === 0) return [];
  return sql<PrintFileRow[]>`select ${columns(sql)} from print_files where id in ${sql(ids)}`;
}

/** Records a made file; a file already recorded for the source and size wins (returned as it is). */
export async function recordPrintFile(sql: Sql, f: Omit<PrintFileRow, 'createdAt'>): Promise<PrintFileRow> {
  await sql`
    insert into print_files (id, user_id, source, generation_id, chat_job_id, size, color, garment_hex, zone,
      storage_key, underbase_key, width_px, height_px, dpi, width_in, height_in, design_box, preflight)
    values (${f.id}, ${f.userId}, ${f.source}, ${f.generationId}, ${f.chatJobId}, ${f.size}, ${f.color},
      ${f.garmentHex}, ${f.zone}, ${f.storageKey}, ${f.underbaseKey}, ${f.widthPx}, ${f.heightPx}, ${f.dpi},
      ${f.widthIn}, ${f.heightIn}, ${sql.json(f.designBox)}, ${sql.json(f.preflight as never)})
    on conflict (source, size) do nothing`;
  return (await findPrintFile(sql, f.source, f.size))!;
}

export interface PrintFileDeps {
  sql: Sql;
  storage: Storage;
  /** reads a design URL (our own files from storage, others through the SSRF guard) */
  loadUserImage: (url: string) => Promise<Buffer>;
}

/**
 * The source's print file for a garment size: the recorded one, or made now (lib/print/make.ts) and recorded.
 * `made` says whether this call rendered it.
 */
export async function printFileFor(
  deps: PrintFileDeps,
  s: PrintSource,
  size: string,
): Promise<{ row: PrintFileRow; made: boolean }> {
  return makePrintFile(
    {
      storage: deps.storage,
      find: () => findPrintFile(deps.sql, s.source, size),
      loadDesign: async () => {
        if (s.designKey) {
          const obj = await deps.storage.get(s.designKey);
          if (!obj) throw new Error(`design file ${s.designKey} is missing`);
          return obj.body;
        }
        return deps.loadUserImage(s.designUrl!);
      },
      record: (m) =>
        recordPrintFile(deps.sql, {
          ...m,
          userId: s.userId,
          source: s.source,
          generationId: s.generationId,
          chatJobId: s.chatJobId,
          size,
          color: s.color,
          garmentHex: s.garmentHex,
          zone: s.zone,
        }),
    },
    { source: s.source, zone: s.zone, zoneIn: s.zoneIn, placement: s.placement, garmentHex: s.garmentHex, size },
  );
}
